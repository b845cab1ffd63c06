"""`harness report --lineage`: a loop's checkpoints in lineage order, per task; what
improved and declined from the first checkpoint to the last, with compare's statistics;
the headline numbers on seen and unseen tasks apart; the bar's verdicts as the loop
decided them."""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel

from .. import stats
from ..bar import held_out_tasks
from ..errors import BadInput
from ..outcomes import Outcomes, combine, load_run
from .cohort import select_cohort
from .comparison import build_comparison
from .document import Document, Lines, Table
from .formatting import fmt_interval, fmt_p, fmt_signed
from .options import ReportOptions
from .scope import scope_notes, training_overlap
from .sections import (
    by_config, headline_table, name_the_view, scope_summaries, summary_data, summary_warnings, unfinished_notes,
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


def build_lineage(lineage, runs_dir: Path, opts: ReportOptions = ReportOptions()) -> Document:
    """Per task, first-round successes out of T at every checkpoint in lineage order (a
    table and a line plot); the tasks that improved and declined from the first to the
    last checkpoint with compare's paired statistics; the headline numbers of every
    checkpoint on all tasks, the tasks seen in training and those not; the bar's verdicts."""
    opts = opts.model_copy(update={"round": 1})
    outcomes = lineage_outcomes(lineage, runs_dir)
    its = lineage.evaluated()
    configs = [it.label for it in its]
    infos = [outcomes.configs[c] for c in configs]
    frame, cohort = select_cohort(outcomes.frame, opts)
    counts = stats.task_counts(frame)
    tasks = sorted(set(counts.index.get_level_values("task")))
    overlap = training_overlap(infos, set(tasks))
    trained = overlap.trained
    held = held_out_tasks(lineage.config.hold_out, tasks, infos)
    seen_scope = "seen in training" + (" (at least)" if overlap.unknown else "")
    scopes: list[tuple[str, set[str] | None]] = [("all tasks", None)]
    if trained:
        scopes.append((seen_scope, trained))
    if overlap.unseen_known:
        scopes.append(("unseen in training", set(tasks) - trained))
    summaries = scope_summaries(counts, configs, scopes, opts)

    cfg = lineage.config
    trials = sorted({i.trials for i in infos if i.trials})
    doc = Document("lineage", f"Lineage of loop {lineage.loop_id}")
    start = f"adapter {cfg.init_adapter}" if cfg.init_adapter else "the base model"
    doc.lead.append(
        f"Loop {lineage.loop_id}: suite {cfg.suite}, base {cfg.base}, from {start}; {len(its)} checkpoint(s) "
        f"evaluated, {'/'.join(map(str, trials))} trial(s) per task; {lineage.status}"
        + (f" ({lineage.stop_reason})" if lineage.stop_reason else "") + ".")
    if cfg.bar is not None:
        doc.lead.append(f"Pre-registered bar: each checkpoint must gain at least {cfg.bar:g} tasks in round "
                        f"{cfg.bar_round} over the one before it (the lower bound of the {opts.confidence:.0%} "
                        "interval), on held-in and held-out tasks separately; the loop stops after "
                        f"{cfg.stop_after_failures} failures in a row.")
    doc.warnings = summary_warnings(summaries, cohort)
    doc.notes += [cohort.note] if cohort else []
    doc.notes.append(opts.method())
    doc.notes.append("A checkpoint's training set is every task its lineage was trained on, ancestors included.")
    doc.notes += [note for note in overlap.notes if not note.startswith("Every headline number")]
    if trained and overlap.unseen_known:
        doc.notes.append(f"Headline numbers are shown on all {len(tasks)} tasks, on the {len(trained)} seen in "
                         f"training by the last checkpoint's lineage and on the {len(tasks) - len(trained)} not seen.")
    elif trained:
        doc.notes.append(f"Headline numbers are shown on all {len(tasks)} tasks and on the {len(trained)} known to "
                         "have been seen in training; no task is claimed unseen, since a training set is unknown.")
    if held:
        doc.notes.append(f"Held out of every curriculum: {', '.join(sorted(held))}.")
    doc.notes += scope_notes(outcomes.frame, configs, infos)
    doc.notes += unfinished_notes(by_config(frame, configs), counts)

    # Per task, per checkpoint: first-round successes out of finished trials.
    wide = counts.reset_index().pivot(index="task", columns="config", values=["c1", "c2", "n1", "n2"]).reindex(index=tasks)
    c1 = wide["c1"].reindex(columns=configs).fillna(-1).to_numpy(dtype=int)
    c2 = wide["c2"].reindex(columns=configs).fillna(-1).to_numpy(dtype=int)
    n = wide["n1"].reindex(columns=configs).fillna(0).to_numpy(dtype=int)
    n2 = wide["n2"].reindex(columns=configs).fillna(0).to_numpy(dtype=int)
    seen_cell = "at least" if overlap.unknown else "yes"
    rows = []
    for i, task in enumerate(tasks):
        cells = [f"{c1[i, j]}/{n[i, j]}" if n[i, j] else "-" for j in range(len(configs))]
        if not (n[i, 0] and n[i, -1]):
            change = "-"
        elif n[i, 0] == n[i, -1]:
            change = f"{c1[i, -1] - c1[i, 0]:+d}" if c1[i, -1] != c1[i, 0] else "0"
        else:
            change = f"{100 * (c1[i, -1] / n[i, -1] - c1[i, 0] / n[i, 0]):+.1f} pp"
        rows.append([task, seen_cell if task in trained else ("unknown" if overlap.unknown else ""),
                     "yes" if task in held else "", *cells]
                    + ([change] if len(configs) > 1 else []))
    columns = ["task", "seen in training", "held out", *configs] + (["first to last"] if len(configs) > 1 else [])
    doc.tables.append(Table("First-round successes out of T, per checkpoint in lineage order", columns, rows,
                            "selected cohort" if cohort else None))
    doc.tables.append(headline_table(summaries, configs, opts.confidence, cohort))
    doc.plots.append(Lines(f"First-round successes per task along loop {lineage.loop_id}" + (" (selected cohort)" if cohort else ""),
                           configs, tasks, c1, n, f"first-round successes out of {max(trials) if trials else 'T'}"))

    comparison = None
    if len(configs) > 1:
        comparison = build_comparison(outcomes, configs[0], configs[-1], opts)
        changes = comparison.data["tasks"]
        better = [r["task"] for r in changes if r["change"] > 0]
        worse = [r["task"] for r in changes if r["change"] < 0]
        doc.lead.append(f"From {configs[0]} to {configs[-1]} in round 1: improved {len(better)} task(s)"
                        + (f" ({', '.join(better)})" if better else "") + f", declined {len(worse)}"
                        + (f" ({', '.join(worse)})" if worse else "") + f", unchanged {len(changes) - len(better) - len(worse)}.")
        doc.notes += [note for note in comparison.notes if note not in doc.notes
                      and not note.startswith(("Training overlap", "Training set unknown", "Every headline number"))]
        doc.warnings += [w for w in comparison.warnings if w not in doc.warnings]
        doc.tables += comparison.tables[1:]
    else:
        doc.notes.append("Only one checkpoint has been evaluated: there is nothing to compare yet.")

    bars = [it for it in its if it.bar is not None]
    if bars:
        ci = f"{opts.confidence:.0%} CI"
        rows = [[str(it.index), str(it.bar.against), sc.scope, str(len(sc.tasks)), f"{sc.before:.2f}", f"{sc.after:.2f}",
                 fmt_signed(sc.difference), fmt_interval(sc.low, sc.high), fmt_p(sc.p_value),
                 "PASS" if sc.passed else "FAIL"] for it in bars for sc in it.bar.scopes]
        doc.tables.append(Table(f"Pre-registered bar ({cfg.bar:g} tasks, round {cfg.bar_round}), as the loop decided",
                                ["iteration", "against", "tasks", "N", "before", "after", "gain", ci, "p", "verdict"],
                                rows))

    doc.records = [{"task": t, "iteration": it.index, "checkpoint": it.label, "trials": int(n[i, j]),
                    "round1": int(c1[i, j]) if n[i, j] else None, "round2_trials": int(n2[i, j]),
                    "round2": int(c2[i, j]) if n2[i, j] else None,
                    "seen_in_training": t in trained if not overlap.unknown or t in trained else None,
                    "held_out": t in held}
                   for i, t in enumerate(tasks) for j, it in enumerate(its)]
    doc.data = {
        "loop_id": lineage.loop_id, "status": lineage.status, "stop_reason": lineage.stop_reason,
        "interval": opts.interval_data(valid=cohort is None), "warnings": doc.warnings,
        "cohort": None if cohort is None else {"note": cohort.note, "ranked_by_round": opts.judged_round,
                                               "inflation": cohort.inflation},
        "method": opts.method(),
        "checkpoints": [{"iteration": it.index, "checkpoint": it.label, "adapter": it.adapter, "parent": it.parent,
                         "eval_run": it.eval_run, "curricula": [c.model_dump() for c in it.curricula],
                         "trained_on_tasks": it.trained_on_tasks, "bar": it.bar.model_dump() if it.bar else None}
                        for it in its],
        "tasks": doc.records,
        "summaries": [summary_data(scope, s, opts, cohort is None) for scope, s in summaries],
        "first_to_last": comparison.data if comparison is not None else None,
        "seen_in_training": sorted(trained), "training_unknown": overlap.unknown, "held_out": sorted(held),
    }
    return name_the_view(doc, opts.accounting)


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
