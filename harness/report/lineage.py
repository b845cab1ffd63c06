"""`harness report --lineage`: a loop's checkpoints in lineage order, per task; what
improved and declined from the first checkpoint to the last, with compare's statistics;
the headline numbers on seen and unseen tasks apart; the bar's verdicts as the loop
decided them."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from pydantic import BaseModel

from .. import stats
from ..bar import held_out_tasks
from ..errors import BadInput
from ..outcomes import Outcomes, combine, load_run
from .cohort import Cohort, select_cohort
from .comparison import Comparison, compute_comparison, render_comparison
from .data import Checkpoint, CheckpointTaskRow, LineageResult
from .document import Document, Lines, Table
from .formatting import fmt_interval, fmt_p, fmt_signed
from .options import ReportOptions
from .scope import Overlap, scope_notes, training_overlap
from .sections import (
    by_config, cohort_data, headline_table, name_the_view, scope_summaries, summary_data, summary_warnings,
    unfinished_notes,
)
from .writing import resolve_format, write


def lineage_outcomes(lineage, runs_dir: Path) -> Outcomes:
    """Every evaluated checkpoint's run, its config named after the checkpoint, with the
    tasks it was trained on counted over its whole ancestry (a card lists only its own
    iteration's curriculum; the starting adapter's card lists its own training). A
    starting adapter whose training set is unknown leaves every checkpoint's unknown too:
    known to hold at least the curricula's tasks."""
    parts, seen, unknown = [], set(), False
    for it in lineage.evaluated():
        part = load_run(Path(runs_dir) / it.eval_run)
        (name,) = part.configs
        info = part.configs[name]
        if it.index == 0:
            unknown = info.training_unknown
            seen = set(info.trained_on_tasks or [])
        else:
            seen |= set(it.trained_on_tasks)
        trained = sorted(seen) if (seen or unknown or info.adapter) else None
        info = info.model_copy(update={"name": it.label, "trained_on_tasks": trained, "training_unknown": unknown})
        parts.append(Outcomes(part.frame.assign(config=it.label), {it.label: info}, label=it.eval_run,
                              sources=part.sources))
    if not parts:
        raise BadInput(f"loop {lineage.loop_id}: no evaluation has finished yet")
    return combine(parts)[0]


@dataclass
class LineageReport:
    """What a loop's lineage report computed: its typed result (the document's data) and the
    counts, statistics and comparison its tables and plots are drawn from."""

    result: LineageResult
    opts: ReportOptions
    lineage: Any                    # loop/lineage.Lineage (imported where it is read)
    outcomes: Outcomes
    frame: pd.DataFrame
    counts: pd.DataFrame
    configs: list[str]              # the checkpoints' labels, in lineage order
    tasks: list[str]
    overlap: Overlap
    held: set[str]
    summaries: list[tuple[str, stats.Summary]]
    cohort: Cohort | None
    grid: dict[str, np.ndarray]     # c1, c2, n1, n2: (tasks, checkpoints), -1 / 0 where none finished
    comparison: Comparison | None   # the first checkpoint against the last


def _grid(counts: pd.DataFrame, tasks: list[str], configs: list[str]) -> dict[str, np.ndarray]:
    """Per task, per checkpoint: successes (-1: none finished) and finished trials."""
    wide = counts.reset_index().pivot(index="task", columns="config", values=["c1", "c2", "n1", "n2"]).reindex(index=tasks)
    return {col: wide[col].reindex(columns=configs).fillna(-1 if col.startswith("c") else 0).to_numpy(dtype=int)
            for col in ("c1", "c2", "n1", "n2")}


def _scopes(overlap: Overlap, tasks: list[str]) -> list[tuple[str, set[str] | None]]:
    scopes: list[tuple[str, set[str] | None]] = [("all tasks", None)]
    if overlap.trained:
        scopes.append(("seen in training" + (" (at least)" if overlap.unknown else ""), overlap.trained))
    if overlap.unseen_known:
        scopes.append(("unseen in training", set(tasks) - overlap.trained))
    return scopes


def compute_lineage(lineage, runs_dir: Path, opts: ReportOptions = ReportOptions()) -> LineageReport:
    """The numbers of a loop's checkpoints in lineage order: per task and checkpoint, the
    headline numbers per scope, and the first checkpoint against the last."""
    opts = opts.model_copy(update={"round": 1})
    outcomes = lineage_outcomes(lineage, runs_dir)
    configs = [it.label for it in lineage.evaluated()]
    infos = [outcomes.configs[c] for c in configs]
    frame, cohort = select_cohort(outcomes.frame, opts)
    counts = stats.task_counts(frame)
    tasks = sorted(set(counts.index.get_level_values("task")))
    overlap = training_overlap(infos, set(tasks))
    held = held_out_tasks(lineage.config.hold_out, tasks, infos)
    summaries = scope_summaries(counts, configs, _scopes(overlap, tasks), opts)
    grid = _grid(counts, tasks, configs)
    comparison = compute_comparison(outcomes, configs[0], configs[-1], opts) if len(configs) > 1 else None
    warnings = summary_warnings(summaries, cohort)
    warnings += [w for w in (comparison.result.warnings if comparison else []) if w not in warnings]
    result = LineageResult(
        loop_id=lineage.loop_id, status=lineage.status, stop_reason=lineage.stop_reason,
        interval=opts.interval_data(valid=cohort is None), warnings=warnings, cohort=cohort_data(cohort, opts),
        method=opts.method(), checkpoints=[_checkpoint(it) for it in lineage.evaluated()],
        tasks=_task_rows(lineage.evaluated(), tasks, grid, overlap, held),
        summaries=[summary_data(scope, s, opts, cohort is None) for scope, s in summaries],
        first_to_last=comparison.result if comparison else None,
        seen_in_training=sorted(overlap.trained), training_unknown=overlap.unknown, held_out=sorted(held),
        accounting=opts.accounting)
    return LineageReport(result, opts, lineage, outcomes, frame, counts, configs, tasks, overlap, held, summaries,
                         cohort, grid, comparison)


def _checkpoint(it) -> Checkpoint:
    return Checkpoint(iteration=it.index, checkpoint=it.label, adapter=it.adapter, parent=it.parent,
                      eval_run=it.eval_run, curricula=[c.model_dump() for c in it.curricula],
                      trained_on_tasks=it.trained_on_tasks, bar=it.bar)


def _task_rows(its: list, tasks: list[str], grid: dict[str, np.ndarray], overlap: Overlap,
               held: set[str]) -> list[CheckpointTaskRow]:
    c1, c2, n, n2 = grid["c1"], grid["c2"], grid["n1"], grid["n2"]
    return [CheckpointTaskRow(task=t, iteration=it.index, checkpoint=it.label, trials=int(n[i, j]),
                              round1=int(c1[i, j]) if n[i, j] else None, round2_trials=int(n2[i, j]),
                              round2=int(c2[i, j]) if n2[i, j] else None,
                              seen_in_training=t in overlap.trained if not overlap.unknown or t in overlap.trained
                              else None, held_out=t in held)
            for i, t in enumerate(tasks) for j, it in enumerate(its)]


def build_lineage(lineage, runs_dir: Path, opts: ReportOptions = ReportOptions()) -> Document:
    """Per task, first-round successes out of T at every checkpoint in lineage order (a
    table and a line plot); the tasks that improved and declined from the first to the
    last checkpoint with compare's paired statistics; the headline numbers of every
    checkpoint on all tasks, the tasks seen in training and those not; the bar's verdicts."""
    return render_lineage(compute_lineage(lineage, runs_dir, opts))


def render_lineage(w: LineageReport) -> Document:
    r = w.result
    doc = Document("lineage", f"Lineage of loop {r.loop_id}", lead=_lead(w), warnings=list(r.warnings))
    doc.notes = _notes(w)
    compared = render_comparison(w.comparison) if w.comparison else None
    if compared is not None:
        doc.notes += [note for note in compared.notes if note not in doc.notes
                      and not note.startswith(("Training overlap", "Training set unknown", "Every headline number"))]
    else:
        doc.notes.append("Only one checkpoint has been evaluated: there is nothing to compare yet.")
    doc.tables = [_task_table(w), headline_table(w.summaries, w.configs, w.opts.confidence, w.cohort)]
    doc.tables += compared.tables[1:] if compared else []
    doc.tables += _bar_table(w)
    trials = _trials(w)
    doc.plots.append(Lines(f"First-round successes per task along loop {r.loop_id}"
                           + (" (selected cohort)" if w.cohort else ""), w.configs, w.tasks, w.grid["c1"],
                           w.grid["n1"], f"first-round successes out of {max(trials) if trials else 'T'}"))
    doc.records = [t.model_dump(mode="json") for t in r.tasks]
    doc.data = r.model_dump(mode="json")
    return name_the_view(doc, w.opts.accounting)


def _trials(w: LineageReport) -> list[int]:
    return sorted({i.trials for i in w.outcomes.configs.values() if i.trials})


def _lead(w: LineageReport) -> list[str]:
    cfg, lineage, opts = w.lineage.config, w.lineage, w.opts
    start = f"adapter {cfg.init_adapter}" if cfg.init_adapter else "the base model"
    lead = [f"Loop {lineage.loop_id}: suite {cfg.suite}, base {cfg.base}, from {start}; {len(w.configs)} "
            f"checkpoint(s) evaluated, {'/'.join(map(str, _trials(w)))} trial(s) per task; {lineage.status}"
            + (f" ({lineage.stop_reason})" if lineage.stop_reason else "") + "."]
    if cfg.bar is not None:
        lead.append(f"Pre-registered bar: each checkpoint must gain at least {cfg.bar:g} tasks in round "
                    f"{cfg.bar_round} over the one before it (the lower bound of the {opts.confidence:.0%} "
                    "interval), on held-in and held-out tasks separately; the loop stops after "
                    f"{cfg.stop_after_failures} failures in a row.")
    if w.comparison is not None:
        changes = w.comparison.result.tasks
        better = [t.task for t in changes if (t.change or 0) > 0]
        worse = [t.task for t in changes if (t.change or 0) < 0]
        lead.append(f"From {w.configs[0]} to {w.configs[-1]} in round 1: improved {len(better)} task(s)"
                    + (f" ({', '.join(better)})" if better else "") + f", declined {len(worse)}"
                    + (f" ({', '.join(worse)})" if worse else "") + f", unchanged {len(changes) - len(better) - len(worse)}.")
    return lead


def _notes(w: LineageReport) -> list[str]:
    trained, tasks, overlap = w.overlap.trained, w.tasks, w.overlap
    notes = [w.cohort.note] if w.cohort else []
    notes.append(w.opts.method())
    notes.append("A checkpoint's training set is every task its lineage was trained on, ancestors included.")
    notes += [note for note in overlap.notes if not note.startswith("Every headline number")]
    if trained and overlap.unseen_known:
        notes.append(f"Headline numbers are shown on all {len(tasks)} tasks, on the {len(trained)} seen in "
                     f"training by the last checkpoint's lineage and on the {len(tasks) - len(trained)} not seen.")
    elif trained:
        notes.append(f"Headline numbers are shown on all {len(tasks)} tasks and on the {len(trained)} known to "
                     "have been seen in training; no task is claimed unseen, since a training set is unknown.")
    if w.held:
        notes.append(f"Held out of every curriculum: {', '.join(sorted(w.held))}.")
    notes += scope_notes(w.outcomes.frame, w.configs, [w.outcomes.configs[c] for c in w.configs])
    return notes + unfinished_notes(by_config(w.frame, w.configs), w.counts)


def _change(c1: np.ndarray, n: np.ndarray, i: int) -> str:
    """Task i's first-round change from the first checkpoint to the last."""
    if not (n[i, 0] and n[i, -1]):
        return "-"
    if n[i, 0] == n[i, -1]:
        return f"{c1[i, -1] - c1[i, 0]:+d}" if c1[i, -1] != c1[i, 0] else "0"
    return f"{100 * (c1[i, -1] / n[i, -1] - c1[i, 0] / n[i, 0]):+.1f} pp"


def _task_table(w: LineageReport) -> Table:
    c1, n, configs, overlap = w.grid["c1"], w.grid["n1"], w.configs, w.overlap
    seen_cell = "at least" if overlap.unknown else "yes"
    rows = []
    for i, task in enumerate(w.tasks):
        cells = [f"{c1[i, j]}/{n[i, j]}" if n[i, j] else "-" for j in range(len(configs))]
        rows.append([task, seen_cell if task in overlap.trained else ("unknown" if overlap.unknown else ""),
                     "yes" if task in w.held else "", *cells] + ([_change(c1, n, i)] if len(configs) > 1 else []))
    columns = ["task", "seen in training", "held out", *configs] + (["first to last"] if len(configs) > 1 else [])
    return Table("First-round successes out of T, per checkpoint in lineage order", columns, rows,
                 "selected cohort" if w.cohort else None)


def _bar_table(w: LineageReport) -> list[Table]:
    """The bar's checks as the loop decided them, when it had a bar."""
    bars = [c for c in w.result.checkpoints if c.bar is not None]
    if not bars:
        return []
    cfg = w.lineage.config
    rows = [[str(c.iteration), str(c.bar.against), sc.scope, str(len(sc.tasks)), f"{sc.before:.2f}", f"{sc.after:.2f}",
             fmt_signed(sc.difference), fmt_interval(sc.low, sc.high), fmt_p(sc.p_value),
             "PASS" if sc.passed else "FAIL"] for c in bars if c.bar for sc in c.bar.scopes]
    return [Table(f"Pre-registered bar ({cfg.bar:g} tasks, round {cfg.bar_round}), as the loop decided",
                  ["iteration", "against", "tasks", "N", "before", "after", "gain", f"{w.opts.confidence:.0%} CI",
                   "p", "verdict"], rows)]


class LineageRequest(BaseModel):
    loop: str                      # a loop id under runs_dir, or its folder
    runs_dir: Path = Path("runs")
    options: ReportOptions = ReportOptions()
    format: str | None = None
    out: Path | None = None


def lineage_report(request: LineageRequest, console) -> tuple[Document, Path | None]:
    # Here, not above: a loop's config imports the curriculum package, which reports need nowhere else.
    from ..loop.lineage import lineage_path, read_lineage, runs_dir_of

    fmt = resolve_format(request.format, request.out)
    path = lineage_path(request.loop, request.runs_dir)
    doc = build_lineage(read_lineage(str(path)), runs_dir_of(path), request.options)
    return doc, write(doc, fmt, request.out, console)
