"""`harness report`: headline numbers per configuration, pass@k, task-trials by state and
agent health; in the aider accounting view also the numbers Aider's benchmark summary
prints."""

from __future__ import annotations

from dataclasses import asdict
from pathlib import Path
from typing import Literal

import pandas as pd
from pydantic import BaseModel

from .. import stats
from ..accounting import aider_summary, describe, in_view
from ..outcomes import Outcomes, load
from ..predict.breakdown import ITEMS_NOTE, outcomes_breakdown
from .cohort import Cohort, select_cohort
from .document import Bars, Document, Table
from .formatting import fmt_percent
from .options import ReportOptions
from .metrics import metrics_table, suite_kind
from .scope import held_out_pool, scope_notes, training_overlap
from .sections import (
    by_config, headline_table, heatmap, name_the_view, scope_summaries, summary_data, summary_warnings, task_scopes,
    prediction_table, transitions_table, unfinished_notes, with_transitions,
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


def _states_table(groups: dict[str, pd.DataFrame], cohort: Cohort | None) -> tuple[Table, dict]:
    rows, data = [], {}
    for name, config_rows in groups.items():
        count = stats.states(config_rows)
        data[name] = count
        rows.append([name, str(len(config_rows))] + [str(count[s]) for s in stats.STATES])
    return Table("Task-trials by state", ["config", "task-trials", *stats.STATES.values()], rows,
                 "selected cohort" if cohort else None), data


def _health_table(groups: dict[str, pd.DataFrame], cohort: Cohort | None) -> tuple[Table, dict]:
    rows, data = [], {}
    for name, config_rows in groups.items():
        h = stats.health(config_rows)
        data[name] = asdict(h)
        rows.append([
            name, str(h.trials), str(h.malformed_responses),
            str(h.exhausted_context_windows), str(h.timeouts),
            "n/a" if h.tokens_per_trial is None else f"{h.tokens_per_trial:,.0f}",
            "n/a" if h.cost_per_trial is None else f"${h.cost_per_trial:.4f}",
        ])
    return Table("Agent health", ["config", "task-trials", "malformed responses",
                                  "exhausted context", "test timeouts", "tokens/trial", "cost/trial"],
                 rows, "selected cohort" if cohort else None), data


def _aider_summary_table(frame: pd.DataFrame, configs: list[str], cohort: Cohort | None) -> tuple[Table, list[dict]]:
    found = [s.as_dict() for s in aider_summary(frame, configs)]
    columns = ["config", "trial", "test_cases", "pass_rate_1", "pass_rate_2", "pass_num_1", "pass_num_2",
               "percent_cases_well_formed", "error_outputs", "num_malformed_responses",
               "num_with_malformed_responses", "user_asks", "lazy_comments", "exhausted_context_windows",
               "prompt_tokens", "completion_tokens", "test_timeouts", "seconds_per_case", "total_cost"]
    rows = [[str(d[c]) if not (c == "trial" and d[c] is None) else "all" for c in columns] for d in found]
    return Table("Aider's benchmark summary, per trial (Aider's definitions and rounding)", columns, rows,
                 "selected cohort" if cohort else None), found


def build_report(outcomes: Outcomes, opts: ReportOptions = ReportOptions()) -> Document:
    """Headline numbers, pass@k, states and agent health per configuration; in the aider
    accounting view also the numbers Aider's benchmark summary prints."""
    configs = list(outcomes.configs)
    frame, cohort = select_cohort(in_view(outcomes.frame, opts.accounting), opts)
    counts = stats.task_counts(frame)
    tasks = set(counts.index.get_level_values("task"))
    infos = [outcomes.configs[c] for c in configs]
    overlap = training_overlap(infos, tasks)
    pool = held_out_pool(infos, tasks)
    scopes = task_scopes(overlap, tasks, pool=pool)
    summaries = scope_summaries(counts, configs, scopes, opts)

    doc = Document("report", "Results by configuration")
    doc.warnings = summary_warnings(summaries, cohort)
    doc.notes += [cohort.note] if cohort else []
    doc.notes.append(describe(opts.accounting))
    doc.notes.append(opts.method())
    doc.notes.append("Mean tasks solved: each task's success rate over its counted trials, summed over "
                     "tasks (with every trial counted, the mean over trials of the tasks solved). "
                     "Recovery: first-round failures over the task-trials with a two-round outcome, and how "
                     "many round 2 solved.")
    doc.notes += scope_notes(outcomes.frame, configs, infos)
    doc.notes += overlap.notes + pool.notes
    groups = by_config(frame, configs)
    doc.notes += unfinished_notes(groups, counts)

    doc.tables.append(headline_table(summaries, configs, opts.confidence, cohort))
    suites = None
    if kind_note := suite_kind(infos):
        doc.notes.append(kind_note)
        table, suites = metrics_table(frame, configs, scopes, opts, cohort)
        doc.tables.append(table)
    main = [s for scope, s in summaries if scope == "all tasks"]
    doc.tables.append(_pass_at_k_table(main, cohort))
    states_table, states_data = _states_table(groups, cohort)
    doc.tables.append(states_table)
    health_table, health_data = _health_table(groups, cohort)
    doc.tables.append(health_table)
    aider_rows = None
    if opts.accounting == "aider":
        table, aider_rows = _aider_summary_table(frame, configs, cohort)
        doc.tables.append(table)
    moves, moves_data = transitions_table(groups, {c: outcomes.configs[c].feedback for c in configs}, cohort)
    doc.tables += [moves] if moves else []
    predicted = outcomes_breakdown(outcomes, frame)
    prediction_rows: list[dict] = []
    if predicted:
        table, prediction_rows = prediction_table(predicted)
        doc.tables.append(table)
        doc.notes.append(ITEMS_NOTE)

    suffix = " (selected cohort)" if cohort else ""
    doc.plots.append(Bars(f"Mean tasks solved, {opts.confidence:.0%} intervals for {stats.TARGETS[opts.interval]}{suffix}",
                          [s.config for s in main], [s.tasks for s in main], [s.mean for s in main],
                          [s.interval for s in main]))
    doc.plots.append(heatmap(counts, [s.config for s in main], sorted(tasks), 2, suffix))

    doc.records = with_transitions([summary_data(scope, s, opts, cohort is None) for scope, s in summaries],
                                   moves_data) + prediction_rows
    doc.data = {
        "interval": opts.interval_data(valid=cohort is None),
        "warnings": doc.warnings,
        "cohort": None if cohort is None else {"note": cohort.note, "ranked_by_round": opts.judged_round,
                                               "inflation": cohort.inflation},
        "method": opts.method(),
        "summaries": doc.records,
        "pass_at_k": {s.config: {key: {k: asdict(v) for k, v in per.items()} for key, per in s.pass_at_k.items()}
                      for s in main},
        "transitions": moves_data,
        "prediction_accuracy": prediction_rows,
        "states": states_data,
        "health": health_data,
        "configs": {c: outcomes.configs[c].model_dump() for c in configs},
        "training_overlap": sorted(overlap.trained) if overlap.trained else None,
        "training_unknown": overlap.unknown,
        "unseen_pool": sorted(pool.unseen) if pool.unseen else None,
        "suite_metrics": suites,
        "aider_summary": aider_rows,
    }
    return name_the_view(doc, opts.accounting)


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
