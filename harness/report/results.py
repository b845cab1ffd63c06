"""`harness report`: headline numbers per configuration, pass@k, task-trials by state and
agent health; in the aider accounting view also the numbers Aider's benchmark summary
prints."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Literal

import pandas as pd
from pydantic import BaseModel

from .. import stats
from ..accounting import aider_summary, describe, in_view
from ..outcomes import Outcomes, load
from ..predict.breakdown import ITEMS_NOTE, outcomes_breakdown
from ..predict.rlef_report import RlefFigures, outcomes_figures
from ..result_facts import DIAGNOSTIC_COLUMNS, METRICS
from .cohort import Cohort, select_cohort
from .data import AiderSummaryRow, Health, PassAtKData, ReportResult
from .document import Bars, Document, Table
from .formatting import fmt_percent
from .options import ReportOptions
from .metrics import metrics_table, suite_kind
from .scope import Overlap, Pool, held_out_pool, scope_notes, training_overlap
from .sections import (
    by_config, cohort_data, headline_table, heatmap, name_the_view, prediction_rows, prediction_table,
    scope_summaries, summary_data, summary_warnings, task_scopes, transitions, transitions_table, unfinished_notes,
    with_transitions,
)
from .writing import PageWriter, resolve_format, write


def _pass_at_k_table(summaries: list[stats.Summary], cohort: Cohort | None) -> Table:
    ks = sorted({k for s in summaries for k in s.pass_at_k.get("round1", {})})
    rows = []
    for s in summaries:
        for key, label in (("round1", "round 1"), ("round2", "two rounds")):
            cells = []
            for k in ks:
                got = s.pass_at_k.get(key, {}).get(k)
                cells.append("n/a" if got is None or not got.tasks else f"{fmt_percent(got.value)} ({got.tasks})")
            rows.append([s.config, label] + cells)
    caption = "(n): the tasks with at least k counted trials, the only ones pass@k averages over"
    if cohort:
        caption = "selected cohort; " + caption
    return Table("Unbiased pass@k, averaged over tasks", ["config", "success in"] + [f"pass@{k}" for k in ks],
                 rows, caption)


def _states_table(states: dict[str, dict[str, int]], groups: dict[str, pd.DataFrame], cohort: Cohort | None) -> Table:
    rows = [[name, str(len(groups[name]))] + [str(count[s]) for s in stats.STATES] for name, count in states.items()]
    return Table("Task-trials by state", ["config", "task-trials", *stats.STATES.values()], rows,
                 "selected cohort" if cohort else None)


def _health_table(health: dict[str, Health], cohort: Cohort | None) -> Table:
    rows = [[name, str(h.trials), str(h.malformed_responses), str(h.exhausted_context_windows), str(h.timeouts),
             "n/a" if h.tokens_per_trial is None else f"{h.tokens_per_trial:,.0f}",
             "n/a" if h.cost_per_trial is None else f"${h.cost_per_trial:.4f}"] for name, h in health.items()]
    return Table("Agent health", ["config", "task-trials", "malformed responses",
                                  "exhausted context", "test timeouts", "tokens/trial", "cost/trial"],
                 rows, "selected cohort" if cohort else None)


def _aider_summary_table(found: list[AiderSummaryRow], cohort: Cohort | None) -> Table:
    columns = list(AiderSummaryRow.model_fields)
    if all(row.language is None for row in found):
        columns.remove("language")
    rows = [[str(d[c]) if not (c in ("trial", "language") and d[c] is None) else "all" for c in columns]
            for d in (row.model_dump() for row in found)]
    return Table("Aider's benchmark summary, per trial" + (" and language" if "language" in columns else "")
                 + " (Aider's definitions and rounding)", columns, rows, "selected cohort" if cohort else None)


@dataclass
class Results:
    """What `harness report` computed: its typed result (the document's data) and the
    counts and statistics its tables and plots are drawn from."""

    result: ReportResult
    opts: ReportOptions
    outcomes: Outcomes
    counts: pd.DataFrame                # stats.task_counts of the rows in view (and in the cohort)
    groups: dict[str, pd.DataFrame]     # those rows per config
    summaries: list[tuple[str, stats.Summary]]
    overlap: Overlap
    pool: Pool
    cohort: Cohort | None
    writers: str | None                 # what written suites' numbers mean, when some config writes them
    suite_tables: list[Table]           # written suites' metrics and shape: report/metrics.py draws them


def compute_report(outcomes: Outcomes, opts: ReportOptions = ReportOptions()) -> Results:
    """Headline numbers, pass@k, states and agent health per configuration, as numbers."""
    configs = list(outcomes.configs)
    frame, cohort = select_cohort(in_view(outcomes.frame, opts.accounting), opts)
    counts = stats.task_counts(frame)
    tasks = set(counts.index.get_level_values("task"))
    infos = [outcomes.configs[c] for c in configs]
    overlap, pool = training_overlap(infos, tasks), held_out_pool(infos, tasks)
    scopes = task_scopes(overlap, tasks, pool=pool)
    summaries = scope_summaries(counts, configs, scopes, opts)
    groups = by_config(frame, configs)
    writers = suite_kind(infos)
    moves = transitions(groups, {c: outcomes.configs[c].feedback for c in configs})
    predicted = prediction_rows(outcomes_breakdown(outcomes, frame))
    main = [s for scope, s in summaries if scope == "all tasks"]
    suite_tables, suite_rows = [], None
    if writers:
        drawn = [metrics_table(frame, configs, scopes, opts, cohort, metrics) for metrics in (METRICS, DIAGNOSTIC_COLUMNS)]
        suite_tables = [table for table, _ in drawn if table.rows]
        suite_rows = [row for _, rows in drawn for row in rows]
    valid = cohort is None
    result = ReportResult(
        interval=opts.interval_data(valid=valid), warnings=summary_warnings(summaries, cohort),
        cohort=cohort_data(cohort, opts), method=opts.method(),
        summaries=[*with_transitions([summary_data(scope, s, opts, valid) for scope, s in summaries], moves),
                   *predicted],
        pass_at_k={s.config: {key: {k: PassAtKData(**asdict(v)) for k, v in per.items()}
                              for key, per in s.pass_at_k.items()} for s in main},
        transitions=moves, prediction_accuracy=predicted, self_rlef=outcomes_figures(outcomes, frame),
        states={name: stats.states(rows) for name, rows in groups.items()},
        health={name: Health(**asdict(stats.health(rows))) for name, rows in groups.items()},
        configs=outcomes.configs, training_overlap=sorted(overlap.trained) if overlap.trained else None,
        training_unknown=overlap.unknown, unseen_pool=sorted(pool.unseen) if pool.unseen else None,
        unseen_pool_backed=sorted(pool.backed) if pool.unseen else None,
        written_after_cutoff=sorted(pool.after) if pool.after else None,
        suite_metrics=suite_rows,
        aider_summary=[AiderSummaryRow(**a.as_dict()) for a in aider_summary(frame, configs)]
        if opts.accounting == "aider" else None,
        accounting=opts.accounting)
    return Results(result, opts, outcomes, counts, groups, summaries, overlap, pool, cohort, writers,
                   suite_tables)


def build_report(outcomes: Outcomes, opts: ReportOptions = ReportOptions()) -> Document:
    """Headline numbers, pass@k, states and agent health per configuration; in the aider
    accounting view also the numbers Aider's benchmark summary prints."""
    return render_report(compute_report(outcomes, opts))


def render_report(w: Results) -> Document:
    r = w.result
    doc = Document("report", "Results by configuration", warnings=list(r.warnings))
    doc.notes = _notes(w)
    doc.tables = _tables(w)
    main = [s for scope, s in w.summaries if scope == "all tasks"]
    suffix = " (selected cohort)" if w.cohort else ""
    doc.plots.append(Bars(f"Mean tasks solved, {w.opts.confidence:.0%} intervals for "
                          f"{stats.TARGETS[w.opts.interval]}{suffix}", [s.config for s in main],
                          [s.tasks for s in main], [s.mean for s in main], [s.interval for s in main]))
    doc.plots.append(heatmap(w.counts, [s.config for s in main], sorted(set(w.counts.index.get_level_values("task"))),
                             2, suffix))
    doc.records = [row.model_dump(mode="json") for row in r.summaries]
    doc.data = r.model_dump(mode="json")
    return name_the_view(doc, w.opts.accounting)


def _notes(w: Results) -> list[str]:
    configs = list(w.result.configs)
    notes = [w.cohort.note] if w.cohort else []
    notes += [describe(w.opts.accounting), w.opts.method()]
    notes.append("Mean tasks solved: each task's success rate over its counted trials, summed over "
                 "tasks (with every trial counted, the mean over trials of the tasks solved). "
                 "Recovery: first-round failures over the task-trials with a two-round outcome, and how "
                 "many round 2 solved.")
    notes += scope_notes(w.outcomes.frame, configs, list(w.result.configs.values()))
    notes += w.overlap.notes + w.pool.notes
    notes += unfinished_notes(w.groups, w.counts)
    notes += [w.writers] if w.writers else []
    return notes + ([ITEMS_NOTE] if w.result.prediction_accuracy else [])


def _tables(w: Results) -> list[Table]:
    r, opts, cohort = w.result, w.opts, w.cohort
    configs = list(r.configs)
    tables = [headline_table(w.summaries, configs, opts.confidence, cohort)]
    tables += w.suite_tables
    tables.append(_pass_at_k_table([s for scope, s in w.summaries if scope == "all tasks"], cohort))
    tables += [_states_table(r.states, w.groups, cohort), _health_table(r.health, cohort)]
    if r.aider_summary is not None:
        tables.append(_aider_summary_table(r.aider_summary, cohort))
    moves = transitions_table(r.transitions, cohort)
    tables += [moves] if moves else []
    if r.prediction_accuracy:
        tables.append(prediction_table(r.prediction_accuracy))
    if r.self_rlef:
        tables.append(_rlef_table(r.self_rlef, cohort))
    return tables


def _rlef_table(found: list[RlefFigures], cohort: Cohort | None) -> Table:
    rows = [[f.config, f.feedback, str(f.trials), fmt_percent(f.public_pass_rate),
             f"[{fmt_percent(f.public_pass_low)}, {fmt_percent(f.public_pass_high)}]", f"{f.average_turns:.2f}",
             str(f.submitted_by_model), str(f.fail_pass), str(f.pass_fail), str(f.pass_pass), str(f.fail_fail)]
            for f in found]
    caption = ("finished trials; public pass rate: the submitted code passes every public test (each task's share, "
               "averaged over tasks; 95% interval resampling tasks, then trials); turns: rounds of code; submitted: "
               "trials the model submitted itself, the others ran out of rounds; transitions: each trial's public "
               "tests, first code against submitted code")
    return Table("Self-RLEF: public tests",
                 ["config", "feedback", "trials", "public pass rate", "95% CI", "average turns",
                  "submitted by the model", "fail→pass", "pass→fail", "pass→pass", "fail→fail"], rows,
                 ("selected cohort; " if cohort else "") + caption)


class ReportRequest(BaseModel):
    sources: list[tuple[Literal["auto", "outcomes", "aider"], str]] = []
    runs_dir: Path = Path("runs")
    options: ReportOptions = ReportOptions()
    format: str | None = None
    out: Path | None = None


def report(request: ReportRequest, console, pages: PageWriter | None = None) -> tuple[Document, Path | None]:
    fmt = resolve_format(request.format, request.out)
    outcomes = load(request.sources, request.runs_dir)
    doc = build_report(outcomes, request.options)
    return doc, write(doc, fmt, request.out, console, outcomes, pages)
