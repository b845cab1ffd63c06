"""The parts the report, compare and lineage documents share: each configuration's rows and
task counts, summaries with intervals per scope of tasks, the headline table, round 1
against the submitted round (fixed, broken), warnings and notes about unreliable or
unfinished numbers, the successes heatmap, and the accounting view named on every table
and plot."""

from __future__ import annotations

import numpy as np
import pandas as pd

from .. import stats
from ..accounting import Accounting
from .cohort import Cohort, cohort_caption, starred
from .data import CohortData, PredictionRow, SummaryRow, Transition
from .document import Document, Heatmap, Table
from .formatting import fmt_interval, fmt_mean, fmt_ratio
from .options import ReportOptions
from .scope import Overlap, Pool


def by_config(frame: pd.DataFrame, configs: list[str]) -> dict[str, pd.DataFrame]:
    """Each config's rows, split once (comparing a 100,000-row string column per config
    costs more than all the statistics)."""
    groups = dict(tuple(frame.groupby("config", sort=False)))
    return {name: groups.get(name, frame.iloc[0:0]) for name in configs}


def unfinished_notes(groups: dict[str, pd.DataFrame], counts: pd.DataFrame) -> list[str]:
    notes = []
    for name, rows in groups.items():
        state = stats.states(rows)
        partial, infra, missing = state["partial"], state["infra_error"], state["missing"]
        if partial:
            notes.append(f"{name}: {partial} task-trial{'s' if partial != 1 else ''} hit an infrastructure error "
                         "after round 1 was tested: round 1 counts, the rounds not finished do not count (not in "
                         "the two-round rate nor in recovery) until `harness run --resume` finishes them.")
        if infra or missing:
            parts = [f"{infra} infrastructure error{'s' if infra != 1 else ''}"] if infra else []
            parts += [f"{missing} never written"] if missing else []
            notes.append(f"{name}: {infra + missing} of {len(rows)} task-trials have no outcome "
                         f"({', '.join(parts)}); they are not counted as failures, and each "
                         "task's rate uses its counted trials.")
        finished = set(counts.loc[name].index) if name in counts.index.get_level_values(0) else set()
        lost = sorted(set(rows["task"].unique()) - finished)
        if lost:
            notes.append(f"{name}: left out, no counted trial: {', '.join(lost)}")
    return notes


def config_counts(counts: pd.DataFrame, name: str, tasks: set[str] | None = None) -> pd.DataFrame:
    if name not in counts.index.get_level_values(0):
        return counts.iloc[0:0].droplevel(0)
    rows = counts.loc[name]
    return rows if tasks is None else rows[rows.index.isin(tasks)]


def headline_table(summaries: list[tuple[str, stats.Summary]], configs: list[str], confidence: float,
                   cohort: Cohort | None) -> Table:
    """One row per config and scope; a config with no counted trial keeps a row saying so
    rather than vanishing from the table."""
    with_scope = any(scope != "all tasks" for scope, _ in summaries)
    ci = f"{confidence:.0%} CI"
    columns = ["config"] + (["tasks in"] if with_scope else []) + [
        "N", "T", "round 1", ci, "two rounds", ci, "recovery"]
    rows = []
    for scope, s in summaries:
        (l1, h1), (l2, h2) = s.interval
        if s.tasks2:
            two = fmt_mean(s.mean[1], s.tasks2) + (f" of {s.tasks2}" if s.tasks2 != s.tasks else "")
            two_ci = starred(fmt_interval(l2, h2), cohort)
        else:
            two, two_ci = "n/a (no two-round outcome)", "n/a"
        rows.append([s.config] + ([scope] if with_scope else []) + [
            str(s.tasks), str(s.trials), fmt_mean(s.mean[0], s.tasks), starred(fmt_interval(l1, h1), cohort),
            two, two_ci, "n/a" if s.recovery is None else fmt_ratio(s.recovery.k, s.recovery.n)])
    present = {s.config for _, s in summaries}
    for name in configs:
        if name not in present:
            rows.append([name] + (["all tasks"] if with_scope else []) + ["0", "0", "no counted trial"] + ["n/a"] * 4)
    return Table("Tasks solved (mean over trials, of N tasks)", columns, rows, cohort_caption(cohort))


def transitions(groups: dict[str, pd.DataFrame], feedback: dict[str, str]) -> dict[str, Transition]:
    """Per config, its finished trials by round 1 against the round submitted, and the
    recovery that follows (round-1 failures the submitted round passes). Empty for
    one-round runs."""
    if not any((rows["rounds"].isna() | (rows["rounds"] >= 2)).any() for rows in groups.values() if len(rows)):
        return {}
    found = {}
    for name, config_rows in groups.items():
        t = stats.transitions(config_rows)
        rec = t.recovery
        found[name] = Transition(feedback=feedback[name], finished_trials=t.trials, both_pass=t.both_pass,
                                 fixed=t.fixed, broken=t.broken, both_fail=t.both_fail, recovered=rec.k,
                                 round1_failures=rec.n)
    return found


def transitions_table(found: dict[str, Transition], cohort: Cohort | None) -> Table | None:
    """The transitions under real and simulated feedback side by side when the configs
    differ in it. None for one-round runs."""
    if not found:
        return None
    rows = [[name, t.feedback, str(t.finished_trials), str(t.both_pass), str(t.fixed), str(t.broken),
             str(t.both_fail), fmt_ratio(t.recovered, t.round1_failures), f"{t.fixed - t.broken:+d}"]
            for name, t in found.items()]
    caption = ("finished trials; the submitted round is a trial's last: real feedback stops at the first pass, "
               "simulated feedback goes on while the model predicts a failure, Self-RLEF until the model submits, "
               "so both can break a pass")
    return Table("Round 1 against the submitted round",
                 ["config", "feedback", "trials", "both pass", "fixed (fail→pass)", "broken (pass→fail)", "both fail",
                  "recovery", "net"], rows, ("selected cohort; " if cohort else "") + caption)


def prediction_rows(found: dict) -> list[PredictionRow]:
    """Prediction runs' accuracy by source kind and task (predict/breakdown.py), as flat rows."""
    return [PredictionRow(config=config, group=a.group, items=a.items, trials=a.trials, correct=a.correct,
                          accuracy=a.accuracy, accuracy_low=a.low, accuracy_high=a.high)
            for config, groups in found.items() for a in groups]


def prediction_table(rows: list[PredictionRow]) -> Table:
    return Table("Prediction accuracy by source and task (95% intervals)",
                 ["config", "group", "items", "trials", "correct", "accuracy", "interval"],
                 [[r.config, r.group, str(r.items), str(r.trials), str(r.correct), f"{r.accuracy:.1%}",
                   f"[{r.accuracy_low:.1%}, {r.accuracy_high:.1%}]"] for r in rows])


def with_transitions(rows: list[SummaryRow], found: dict[str, Transition]) -> list[SummaryRow]:
    """Summary rows (CSV) with their config's transitions on its all-tasks row."""
    return [SummaryRow(**{**r.model_dump(), **found[r.config].model_dump()})
            if r.tasks_in == "all tasks" and r.config in found else r for r in rows]


def scope_summaries(
    counts: pd.DataFrame, configs: list[str], scopes: list[tuple[str, set[str] | None]], opts: ReportOptions,
) -> list[tuple[str, stats.Summary]]:
    """Summaries with intervals of each config over each scope (all tasks, unseen)."""
    found = []
    for scope, tasks in scopes:
        for name in configs:
            c = config_counts(counts, name, tasks)
            if len(c):
                summary = stats.summarize(name, c, with_pass_at_k=scope == "all tasks")
                summary.interval = stats.intervals_of(c, opts.interval, opts.resamples, opts.seed, opts.confidence)
                found.append((scope, summary))
    return found


def summary_warnings(summaries: list[tuple[str, stats.Summary]], cohort: Cohort | None) -> list[str]:
    warnings = []
    fewest: dict[str, int] = {}
    for scope, s in summaries:
        fewest[scope] = min(fewest.get(scope, s.tasks), s.tasks)
    small = {scope: n for scope, n in fewest.items() if n < stats.MIN_TASKS}
    if small:
        here = None if list(small) == ["all tasks"] else ", ".join(f"{n} {scope}" for scope, n in small.items())
        if warning := stats.small_suite_warning(min(small.values()), here):  # never None below MIN_TASKS
            warnings.append(warning)
    if cohort:
        warnings.append("Warning: a selected cohort: intervals and p-values are not valid (marked *).")
    return warnings


def heatmap(counts: pd.DataFrame, configs: list[str], tasks: list[str], round_no: int, suffix: str) -> Heatmap:
    n_col, col = f"n{round_no}", f"c{round_no}"
    wide = counts.reset_index().pivot(index="task", columns="config", values=[col, n_col])
    wide = wide.reindex(index=tasks)
    trials = wide[n_col].reindex(columns=configs).fillna(0).to_numpy(dtype=int)
    successes = np.where(trials > 0, wide[col].reindex(columns=configs).fillna(-1).to_numpy(dtype=int), -1)
    what = "in round 1" if round_no == 1 else "within two rounds"
    return Heatmap(f"Successes {what}, out of counted trials{suffix}", tasks, configs, successes, trials)


def summary_data(scope: str, s: stats.Summary, opts: ReportOptions, valid: bool) -> SummaryRow:
    (l1, h1), (l2, h2) = s.interval
    return SummaryRow(
        config=s.config, tasks_in=scope, tasks=s.tasks, trials=s.trials,
        round1_mean=s.mean[0], round1_percent=s.percent(1), round1_low=l1, round1_high=h1,
        round2_tasks=s.tasks2,
        round2_mean=s.mean[1], round2_percent=s.percent(2), round2_low=l2, round2_high=h2,
        recovered=None if s.recovery is None else s.recovery.k,
        first_round_failures=None if s.recovery is None else s.recovery.n,
        interval_target=opts.interval, interval_valid=valid,
    )


def cohort_data(cohort: Cohort | None, opts: ReportOptions) -> CohortData | None:
    return None if cohort is None else CohortData(note=cohort.note, ranked_by_round=opts.judged_round,
                                                  inflation=cohort.inflation)


def task_scopes(overlap: Overlap, tasks: set[str], all_tasks: set[str] | None = None,
                pool: Pool | None = None) -> list[tuple[str, set[str] | None]]:
    """The sets of tasks every headline number is shown on: all of them; those no config
    was trained on, when that is known; the seen and the unseen pool, when the suites
    declare some tasks unseen and some not; those written after every config's training
    cutoff and those before it, when some tasks are and some not (undated tasks are in
    neither)."""
    scopes: list[tuple[str, set[str] | None]] = [("all tasks", all_tasks)]
    if overlap.unseen_known:
        scopes.append(("unseen in training", tasks - overlap.trained))
    if pool is not None and pool.splits(tasks):
        scopes += [("seen pool", tasks - pool.unseen), ("unseen pool", tasks & pool.unseen)]
    if pool is not None and pool.splits_by_date(tasks):
        scopes.append(("written after cutoff", tasks & pool.after))
        if tasks & pool.before:
            scopes.append(("written before cutoff", tasks & pool.before))
    return scopes


def name_the_view(doc: Document, view: Accounting) -> Document:
    """Every table and plot says which accounting view its numbers are in."""
    label = f"[{view} accounting]"
    for item in (*doc.tables, *doc.plots):
        if not item.title.endswith(label):
            item.title = f"{item.title} {label}"
    return doc
