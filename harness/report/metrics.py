"""The numbers of written test suites (`harness run --kind tests`) in a report and in a
comparison: validity, kill rate and assertion accuracy, each as a mean over tasks with its
interval (stats.summarize_metric), and NEW minus BASE in each with its interval and paired
p-value (stats.metric_difference). compare's pre-registered bar may be judged on any one."""

from __future__ import annotations

from dataclasses import asdict

import pandas as pd

from .. import stats
from ..kinds import metrics_of
from ..outcomes import ConfigInfo
from ..result_facts import METRICS
from .cohort import Cohort, cohort_caption, starred
from .document import Table
from .formatting import fmt_interval, fmt_p
from .options import ReportOptions
from .scope import Pool

NAMES = {"valid": "valid", "kill_rate": "kill rate", "assertion_accuracy": "assertion accuracy",
         "tests": "tests", "assertions": "assertions", "suite_lines": "lines", "equality_share": "equality",
         "exception_share": "exception", "property_share": "property", "other_share": "other",
         "constant_share": "constant"}
SHAPE_CAPTION = ("what the suites are made of, read from their text (every scored suite, valid or not): tests and "
                 "assertions written, lines of code, and each kind's share of the assertions (equality: an exact "
                 "expected value; exception: an error raised; property: a relation that is not exact equality; "
                 "other: a value is true; constant: no run of the solution can change it), means over tasks")
ROUNDS = {1: "round 1", 2: "two rounds"}
# The scopes a bar's verdict also reports on, and how the verdict names their tasks.
UNSEEN_SCOPES = {"unseen in training": "the tasks no config was trained on",
                 "unseen pool": "the tasks their suite declares unseen",
                 "written after cutoff": "the tasks written after every config's training cutoff"}


def unseen_scope_names(pool: Pool) -> dict[str, str]:
    """UNSEEN_SCOPES, the unseen pool said to be backed by dates or declared only."""
    backed = "backed by dates" if pool.backed == pool.unseen else "declared only, not every one backed by dates"
    return {**UNSEEN_SCOPES, "unseen pool": f"{UNSEEN_SCOPES['unseen pool']} ({backed})"}


def suite_kind(infos: list[ConfigInfo]) -> str | None:
    """What the numbers of test-writing configurations mean, or None when there is none."""
    writers = [i.name for i in infos if metrics_of(i.kind)]
    if not writers:
        return None
    note = ("Written test suites (--kind tests): a trial solves its task when its suite is valid (it compiles and "
            "every assertion holds on the correct solution). Kill rate: the share of the task's broken solutions "
            "(faulty controls and mutants its own tests kill) on which some assertion fails, over valid suites only; "
            "assertion accuracy: the share of a suite's assertions that hold on the correct solution. Each is a mean "
            "over tasks of the task's mean over its trials with a value.")
    others = [i.name for i in infos if not metrics_of(i.kind)]
    if others:
        note += f" Not test writers: {', '.join(others)}; they have no such numbers."
    return note


def embedding_trials(frame: pd.DataFrame, config: str, tasks: set[str] | None = None) -> int:
    """Trials of `config` (in `tasks`) with a suite that embeds the reference: counted
    apart, in none of the shares and never solved (testwriting/embedding.py)."""
    rows = frame[frame["config"] == config]
    if tasks is not None:
        rows = rows[rows["task"].isin(tasks)]
    return int((rows["embeds_reference"] > 0).sum()) if "embeds_reference" in rows else 0


def _cell(s: stats.MetricSummary, cohort: Cohort | None) -> str:
    if not s.tasks:
        return "n/a"
    return f"{s.mean:.2f} {starred(fmt_interval(*s.interval), cohort)} ({s.tasks})"


def metrics_table(frame: pd.DataFrame, configs: list[str], scopes: list[tuple[str, set[str] | None]],
                  opts: ReportOptions, cohort: Cohort | None,
                  metrics: tuple[str, ...] = METRICS) -> tuple[Table, list[dict]]:
    """Per config, scope and round: each metric's mean, interval and task count (the
    suites' diagnostics with `metrics` result_facts.DIAGNOSTIC_COLUMNS)."""
    shape = metrics != METRICS
    rows, data = [], []
    ci = f"{opts.confidence:.0%} CI"
    with_scope = len(scopes) > 1
    for scope, tasks in scopes:
        for name in configs:
            for r in (1, 2):
                found = [stats.summarize_metric(frame, name, m, r, tasks, opts.interval, opts.resamples, opts.seed,
                                                opts.confidence) for m in metrics]
                if not any(s.tasks for s in found):
                    continue
                embedding = embedding_trials(frame, name, tasks)
                rows.append([name] + ([scope] if with_scope else []) + [ROUNDS[r]] + [_cell(s, cohort) for s in found]
                            + ([] if shape else [str(embedding)]))
                data += [dict(asdict(s), tasks_in=scope, interval_target=opts.interval, interval_valid=cohort is None,
                              embeds_reference_trials=embedding) for s in found if s.tasks]
    columns = (["config"] + (["tasks in"] if with_scope else []) + ["round"]
               + [f"{NAMES[m]} ({ci}, tasks)" for m in metrics] + ([] if shape else ["embeds the reference"]))
    caption = SHAPE_CAPTION if shape else (
        "means over tasks, as shares; (tasks): the tasks with a value; embeds the reference: trials whose suite "
        "holds a copy of the reference's code, counted apart (never valid here, in no share)")
    if cohort:
        caption = f"{cohort_caption(cohort)}; {caption}"
    title = "Written suites: shape" if shape else "Written suites: validity, kill rate, assertion accuracy"
    return Table(title, columns, rows, caption), data


def metric_differences(frame: pd.DataFrame, base: str, new: str, scopes: list[tuple[str, set[str] | None]],
                       opts: ReportOptions, metrics: tuple[str, ...] = METRICS
                       ) -> dict[str, list[stats.MetricDifference]]:
    out: dict[str, list[stats.MetricDifference]] = {}
    for scope, tasks in scopes:
        found = [stats.metric_difference(frame, base, new, m, r, tasks, opts.interval, opts.resamples, opts.seed,
                                         opts.confidence) for m in metrics for r in (1, 2)]
        out[scope] = [d for d in found if d is not None]
    return out


def differences_table(diffs: dict[str, list[stats.MetricDifference]], base: str, new: str, opts: ReportOptions,
                      cohort: Cohort | None, frame: pd.DataFrame | None = None, shape: bool = False) -> Table:
    """NEW minus BASE per metric (with `shape`, per diagnostic of the suites' shape)."""
    rows = []
    for scope, found in diffs.items():
        for d in found:
            rows.append([scope, NAMES[d.metric], ROUNDS[d.round], str(d.tasks), f"{d.base:.2f}", f"{d.new:.2f}",
                         f"{d.difference:+.2f}", starred(fmt_interval(*d.interval), cohort),
                         starred(fmt_p(d.p_value), cohort)])
    caption = ("paired over the tasks both have a value for; p: validity by the stratified exact test, the shares by "
               "the exact sign-flip test of the per-task differences")
    if shape:
        caption = ("paired over the tasks both have a value for; p: the exact sign-flip test of the per-task "
                   f"differences; {SHAPE_CAPTION}")
    elif frame is not None:
        caption += (f"; trials whose suite embeds the reference, counted apart (in no share, never valid here): "
                    f"{base} {embedding_trials(frame, base)}, {new} {embedding_trials(frame, new)}")
    if cohort:
        caption = f"{cohort_caption(cohort)}; {caption}"
    title = f"Written suites' shape: {new} minus {base}" if shape else f"Written suites: {new} minus {base}, per metric"
    return Table(title, ["tasks in", "metric", "success in", "N", base, new,
                                                                     "difference", f"{opts.confidence:.0%} CI",
                                                                     "p (exact)"], rows, caption)


def per_task_table(frame: pd.DataFrame, base: str, new: str, tasks: list[str], round_no: int) -> tuple[Table, list[dict]]:
    """Per task: each metric's mean for BASE and NEW in the round, kill rate's change
    first (its largest losses first)."""
    means = {(c, m): stats.task_means(frame, c, m, round_no) for c in (base, new) for m in METRICS}
    rows: list[list[str]] = []
    data: list[dict] = []
    for task in tasks:
        got = {f"{side}_{m}": means[(name, m)].get(task) for side, name in (("base", base), ("new", new))
               for m in METRICS}
        b, n = got["base_kill_rate"], got["new_kill_rate"]
        data.append({"task": task, "round": round_no, **got, "kill_rate_change": None if b is None or n is None else n - b})
    data.sort(key=lambda d: (d["kill_rate_change"] is None, d["kill_rate_change"] or 0.0, d["task"]))

    def cell(x: float | None) -> str:
        return "n/a" if x is None else f"{x:.2f}"

    for d in data:
        change = d["kill_rate_change"]
        rows.append([d["task"]] + [cell(d[f"{side}_{m}"]) for m in METRICS for side in ("base", "new")]
                    + ["n/a" if change is None else f"{change:+.2f}"])
    columns = ["task"] + [f"{name} {NAMES[m]}" for m in METRICS for name in (base, new)] + ["kill rate change"]
    return Table(f"Written suites per task ({ROUNDS[round_no]}): means over each task's trials with a value",
                 columns, rows, "n/a: no trial with a value (a kill rate needs a valid suite)"), data


def metric_bar_verdict(diffs: dict[str, list[stats.MetricDifference]], opts: ReportOptions, metric: str,
                       bar: float, label: str, named: dict[str, str] = UNSEEN_SCOPES) -> tuple[list[str], str]:
    """The bar of `bar` on `metric` (opts.bar, opts.metric), stated before any number: NEW
    passes when the lower bound of the interval of its gain in that share is at least DELTA;
    `label` says whether it was registered before the run."""
    what = NAMES[metric] + (" in round 1" if opts.judged_round == 1 else " within two rounds")
    rule = (f"{label}: NEW must gain at least {bar:g} in {what} (a share, mean over tasks): the "
            f"lower bound of the {opts.confidence:.0%} interval (for {stats.TARGETS[opts.interval]}) must be at least "
            f"{bar:g}.")
    found = [d for d in diffs.get("all tasks", []) if d.metric == metric and d.round == opts.judged_round]
    if not found:
        return [rule, f"FAIL: no shared task has a value of {what}."], "FAIL"
    d = found[0]
    verdict = "PASS" if stats.clears_bar(d, bar) else "FAIL"
    lead = [rule, f"{verdict}: gain {d.difference:+.3f} over {d.tasks} tasks, interval {fmt_interval(*d.interval)}; "
                  f"the lower bound {d.interval[0]:.3f} is {'at least' if verdict == 'PASS' else 'below'} {bar:g}."]
    for scope, tasks in named.items():
        other = [x for x in diffs.get(scope, []) if x.metric == metric and x.round == opts.judged_round]
        if other:
            lead.append(f"On {tasks}: gain {other[0].difference:+.3f}, interval {fmt_interval(*other[0].interval)} "
                        "(the verdict above is on all shared tasks).")
    return lead, verdict
