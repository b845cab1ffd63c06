"""The loop's pre-registered bar: a checkpoint's evaluation against the one before it, on
the tasks held out of every curriculum and on the rest apart, with `harness compare`'s
paired statistics. A scope clears the bar when the lower bound of its gain's interval is at
least the bar (stats.clears_bar, the rule compare's --pre-registered-bar uses too).

The verdicts are records: the loop stores them in its lineage and reports read them back."""

from __future__ import annotations

from typing import Literal

from . import stats
from .errors import BadInput
from .hold_out import HoldOut
from .records import Record


class ScopeCheck(Record):
    """NEW minus the previous iteration on one group of tasks: the paired task bootstrap
    of `harness compare`."""

    scope: Literal["held-in", "held-out"]
    tasks: list[str]
    before: float
    after: float
    difference: float
    low: float
    high: float
    p_value: float
    passed: bool


class BarCheck(Record):
    delta: float
    round: Literal[1, 2]
    against: int                # the iteration compared with
    scopes: list[ScopeCheck]
    passed: bool                # every scope with tasks cleared the bar


def held_out_tasks(hold_out: list[str], tasks, infos) -> set[str]:
    """The tasks (slugs) among `tasks` that --hold-out names, by slug or as <suite>/<slug>
    of the suite the configs (outcomes.ConfigInfo) recorded."""
    held = HoldOut(hold_out)
    suites = {(i.suite or "").split(" ")[0] for i in infos}
    return {t for t in tasks if any(f"{s}/{t}" in held for s in suites)}


def bar_check(before, after, hold_out: list[str], delta: float, round_no: int, against: int,
              resamples: int | None = None, seed: int | None = None) -> BarCheck:
    """Compare two evaluations (Outcomes of one config each) on held-in and held-out
    tasks separately; a scope with no counted outcome in the round fails."""
    (b_name,), (a_name,) = list(before.configs), list(after.configs)
    b = stats.task_counts(before.frame)
    a = stats.task_counts(after.frame)
    b = b.loc[b_name] if len(b) else b
    a = a.loc[a_name] if len(a) else a
    shared = sorted(set(b.index) & set(a.index))
    if not shared:
        raise BadInput(f"iterations {against} and {against + 1} share no task with finished trials")
    held = held_out_tasks(hold_out, shared, [before.configs[b_name], after.configs[a_name]])
    groups = [("held-in", [t for t in shared if t not in held]), ("held-out", [t for t in shared if t in held])]
    scopes = []
    for scope, tasks in groups:
        if not tasks:
            continue
        found = [d for d in stats.paired_differences(b.loc[tasks], a.loc[tasks], "tasks", resamples or stats.RESAMPLES,
                                                     stats.SEED if seed is None else seed) if d.round == round_no]
        if not found:
            raise BadInput(f"iterations {against} and {against + 1}: no {scope} task has a counted outcome "
                           f"in round {round_no}")
        d = found[0]
        scopes.append(ScopeCheck(scope=scope, tasks=tasks, before=d.base, after=d.new, difference=d.difference,
                                 low=d.interval[0], high=d.interval[1], p_value=d.p_value,
                                 passed=stats.clears_bar(d, delta)))
    return BarCheck(delta=delta, round=round_no, against=against, scopes=scopes, passed=all(s.passed for s in scopes))
