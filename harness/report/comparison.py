"""`harness compare`: per-task changes from BASE to NEW, paired statistics over their
shared tasks, recovery side by side, and the verdict of a pre-registered bar."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from pathlib import Path

import pandas as pd

from .. import stats
from ..accounting import describe, in_view
from ..errors import BadInput
from ..outcomes import Outcomes, load_pair
from ..registered_bar import ROUND_NAMES
from ..result_facts import DIAGNOSTIC_COLUMNS, METRICS
from .cohort import Cohort, cohort_caption, select_cohort, starred
from .data import ComparisonResult, MetricDifferenceRow, PairedRow, TaskChangeRow, TaskPowerData
from .document import Bars, Document, Heatmap, Lines, Table
from .formatting import fmt_interval, fmt_p, fmt_ratio, fmt_signed
from .options import ReportOptions
from .results import ReportRequest
from .metrics import (differences_table, metric_bar_verdict, metric_differences, per_task_table, suite_kind,
                      unseen_scope_names)
from .registered import bar_in_force
from .scope import Overlap, Pool, held_out_pool, scope_notes, training_overlap
from .sections import (
    by_config, cohort_data, config_counts, headline_table, heatmap, name_the_view, scope_summaries, summary_data,
    summary_warnings, task_scopes, transitions, transitions_table, unfinished_notes,
)
from .writing import PageWriter, resolve_format, write


@dataclass
class Comparison:
    """What compare computed: its typed result (the document's data) and the counts and
    statistics its tables and plots are drawn from."""

    result: ComparisonResult
    opts: ReportOptions
    outcomes: Outcomes
    frame: pd.DataFrame                 # the rows in view (and in the cohort)
    counts: pd.DataFrame                # stats.task_counts of frame
    sides: tuple[pd.DataFrame, pd.DataFrame]   # BASE's and NEW's counts per task
    shared: list[str]
    scopes: list[tuple[str, set[str] | None]]
    summaries: list[tuple[str, stats.Summary]]
    changes: dict[int, list[stats.TaskChange]]   # per round shown
    suite_diffs: dict[str, list[stats.MetricDifference]] | None
    overlap: Overlap
    pool: Pool
    cohort: Cohort | None
    writers: str | None                 # what written suites' numbers mean, when some config writes them
    two_rounds: bool                    # both configs have a two-round outcome somewhere
    suite_task_table: Table | None      # written suites per task: report/metrics.py draws it with their rows


def _power(changes: list[stats.TaskChange], round_no: int, alpha: float) -> stats.TaskPower | None:
    if not changes:
        return None
    i = round_no - 1
    return stats.task_power([c.base[2 * i] for c in changes], [c.new[2 * i] for c in changes], alpha)


def _paired(scopes: list[tuple[str, set[str] | None]], sides: tuple[pd.DataFrame, pd.DataFrame],
            opts: ReportOptions) -> dict[str, list[stats.PairedDifference]]:
    base_all, new_all = sides
    return {scope: stats.paired_differences(base_all.loc[sorted(tasks)], new_all.loc[sorted(tasks)], opts.interval,
                                            opts.resamples, opts.seed, opts.confidence)
            for scope, tasks in scopes if tasks}


def _rounds_shown(sides: tuple[pd.DataFrame, pd.DataFrame], opts: ReportOptions) -> tuple[list[int], bool]:
    """The rounds labelled, and whether both configs have a two-round outcome somewhere."""
    base_all, new_all = sides
    two_rounds = bool(((base_all["n2"] > 0) & (new_all["n2"] > 0)).any())
    return [r for r in opts.shown_rounds(2 if two_rounds else 1) if r == 1 or two_rounds] or [1], two_rounds


def _shared(counts: pd.DataFrame, base: str, new: str) -> tuple[tuple[pd.DataFrame, pd.DataFrame], list[str]]:
    sides = config_counts(counts, base), config_counts(counts, new)
    shared = sorted(set(sides[0].index) & set(sides[1].index))
    if not shared:
        raise BadInput(f"{base} and {new} share no tasks with counted trials "
                       f"({base}: {len(sides[0])} tasks, {new}: {len(sides[1])} tasks)")
    return sides, shared


def compute_comparison(outcomes: Outcomes, base: str, new: str, opts: ReportOptions = ReportOptions()) -> Comparison:
    """Per-task changes from BASE to NEW, paired statistics over their shared tasks and the
    verdict of a pre-registered bar, as numbers."""
    force = bar_in_force(outcomes.configs[base], outcomes.configs[new], opts)
    opts = force.opts
    if opts.bar is not None and opts.cohort is not None:
        raise BadInput("--pre-registered-bar cannot be judged on a selected cohort (--cohort): its intervals "
                       "are not valid; drop one of them")
    frame, cohort = select_cohort(in_view(outcomes.frame, opts.accounting), opts)
    counts = stats.task_counts(frame)
    sides, shared = _shared(counts, base, new)
    infos = [outcomes.configs[base], outcomes.configs[new]]
    overlap = training_overlap(infos, set(shared))
    pool = held_out_pool(infos, set(shared))
    scopes = task_scopes(overlap, set(shared), set(shared), pool)
    writers = suite_kind(infos)
    if opts.metric is not None and writers is None:
        raise BadInput(f"--metric {opts.metric}: neither {base} nor {new} writes test suites (harness run --kind tests)")
    suite_diffs = metric_differences(frame, base, new, scopes, opts, (*METRICS, *DIAGNOSTIC_COLUMNS)) if writers else None
    summaries = scope_summaries(counts, [base, new], scopes, opts)
    paired = _paired(scopes, sides, opts)
    shown, two_rounds = _rounds_shown(sides, opts)
    changes = {r: stats.task_changes(sides[0].loc[shared], sides[1].loc[shared], r, opts.alpha) for r in shown}
    power = _power(changes[shown[-1]], shown[-1], opts.alpha)  # the round the plain fields are about
    lead, verdict = _verdict(paired, suite_diffs, opts, force.label, unseen_scope_names(pool))
    lead = force.lines + lead
    warnings = summary_warnings(summaries, cohort)
    if power is not None and (sentence := power.sentence(len(changes[shown[-1]]), opts.alpha)):
        warnings.append(sentence)
    moves = transitions(by_config(frame[frame["task"].isin(shared)], [base, new]),
                        {c: outcomes.configs[c].feedback for c in (base, new)})
    suite_table, suite_tasks = per_task_table(frame, base, new, shared, opts.judged_round) if writers else (None, None)
    valid = cohort is None
    result = ComparisonResult(
        base=base, new=new, round=opts.round, rounds_shown=shown, interval=opts.interval_data(valid=valid),
        warnings=warnings, cohort=cohort_data(cohort, opts), verdict=verdict, lead=lead,
        summaries=[summary_data(scope, s, opts, valid) for scope, s in summaries],
        paired={scope: [PairedRow(**asdict(d), p_value_valid=valid) for d in diffs] for scope, diffs in paired.items()},
        task_power=None if power is None else TaskPowerData(**asdict(power)),
        tasks=_task_records(changes, _task_order(changes), overlap.trained, opts.round),
        configs={c: outcomes.configs[c] for c in (base, new)},
        training_overlap=sorted(overlap.trained) if overlap.trained else None, training_unknown=overlap.unknown,
        transitions=moves, unseen_pool=sorted(pool.unseen) if pool.unseen else None,
        unseen_pool_backed=sorted(pool.backed) if pool.unseen else None,
        written_after_cutoff=sorted(pool.after) if pool.after else None,
        suite_metrics=None if suite_diffs is None else {
            scope: [MetricDifferenceRow(**asdict(d), p_value_valid=valid) for d in diffs]
            for scope, diffs in suite_diffs.items()},
        suite_tasks=suite_tasks,
        accounting=opts.accounting, registered_bar=force.registration,
        bar_post_hoc=opts.bar is not None and force.registration is None)
    return Comparison(result, opts, outcomes, frame, counts, sides, shared, scopes, summaries, changes, suite_diffs,
                      overlap, pool, cohort, writers, two_rounds, suite_table)


def _verdict(paired: dict[str, list[stats.PairedDifference]], suite_diffs: dict[str, list[stats.MetricDifference]] | None,
             opts: ReportOptions, label: str, named: dict[str, str]) -> tuple[list[str], str | None]:
    """The bar's rule and verdict, on a metric of written suites when one is asked
    (suite_diffs is None only without writers, and --metric without them is refused);
    `label` says whether it was registered before the run (registered.py)."""
    if opts.bar is None:
        return [], None
    if opts.metric is not None and suite_diffs is not None:
        return metric_bar_verdict(suite_diffs, opts, opts.metric, opts.bar, label, named)
    return _bar_verdict(paired, opts, opts.bar, label, named)


def build_comparison(outcomes: Outcomes, base: str, new: str, opts: ReportOptions = ReportOptions()) -> Document:
    """Per-task changes from BASE to NEW, paired statistics over their shared tasks,
    recovery side by side, and the verdict of a pre-registered bar."""
    return render_comparison(compute_comparison(outcomes, base, new, opts))


def render_comparison(c: Comparison) -> Document:
    r = c.result
    doc = Document("compare", f"{r.new} against {r.base}", lead=list(r.lead), warnings=list(r.warnings),
                   verdict=r.verdict)
    doc.notes = _notes(c)
    doc.tables = _tables(c)
    doc.plots = _plots(c)
    doc.records = [t.model_dump(mode="json") for t in r.tasks]
    doc.data = r.model_dump(mode="json")
    return name_the_view(doc, c.opts.accounting)


def _notes(c: Comparison) -> list[str]:
    r, opts = c.result, c.opts
    shown, primary = r.rounds_shown, r.rounds_shown[-1]
    round_name = " and ".join(ROUND_NAMES[x] for x in shown)
    notes = [c.cohort.note] if c.cohort else []
    notes += [describe(opts.accounting), opts.method()]
    notes.append(
        f"Suite-level test over the shared tasks: the stratified exact test of \"no change on any task\" (NEW's "
        "successes summed over tasks against their exact null distribution, the convolution of each task's "
        "hypergeometric split of its successes between the two configs; two-sided, twice the smaller tail). "
        f"Per task: Fisher's exact test of the two success counts ({round_name}), Holm-corrected across the "
        f"{len(c.changes[primary])} tasks{' of each round' if len(shown) > 1 else ''}; a gain or regression without "
        f"\"(n.s.)\" survives the correction at {opts.alpha:g}; \"min p\" is the smallest p-value the task's trial "
        "counts allow." + ("" if len(shown) > 1 or not c.two_rounds else
                           f" Only {ROUND_NAMES[primary]} is labelled (--round); without --round both are."))
    for name, side in ((r.base, c.sides[0]), (r.new, c.sides[1])):
        if only := sorted(set(side.index) - set(c.shared)):
            notes.append(f"Left out, only {name} has counted trials of: {', '.join(only)}")
    frame = c.outcomes.frame
    notes += scope_notes(frame[frame["task"].isin(c.shared)], [r.base, r.new], list(r.configs.values()),
                         set(c.shared))
    notes += c.overlap.notes + c.pool.notes
    notes += [c.writers] if c.writers else []
    return notes + unfinished_notes(by_config(c.frame, [r.base, r.new]), c.counts)


def _of(diffs: dict[str, list[stats.MetricDifference]], metrics: tuple[str, ...]) -> dict[str, list[stats.MetricDifference]]:
    return {scope: [d for d in found if d.metric in metrics] for scope, found in diffs.items()}


def _tables(c: Comparison) -> list[Table]:
    r, opts, cohort = c.result, c.opts, c.cohort
    tables = [headline_table(c.summaries, [r.base, r.new], opts.confidence, cohort)]
    rows = [[scope, "round 1" if d.round == 1 else "two rounds", str(d.tasks), f"{d.base:.2f}", f"{d.new:.2f}",
             fmt_signed(d.difference), starred(fmt_interval(*d.interval), cohort), starred(fmt_p(d.p_value), cohort)]
            for scope, diffs in r.paired.items() for d in diffs]
    tables.append(Table(f"Difference in mean tasks solved ({r.new} minus {r.base})",
                        ["tasks in", "success in", "N", r.base, r.new, "difference", f"{opts.confidence:.0%} CI",
                         "p (exact)"], rows, cohort_caption(cohort)))
    if c.suite_diffs is not None and c.suite_task_table is not None:
        tables.append(differences_table(_of(c.suite_diffs, METRICS), r.base, r.new, opts, cohort, c.frame))
        shape = _of(c.suite_diffs, DIAGNOSTIC_COLUMNS)
        tables += [differences_table(shape, r.base, r.new, opts, cohort, shape=True)] if any(shape.values()) else []
        tables.append(c.suite_task_table)
    tables.append(_task_table(c.changes, *c.sides, r.base, r.new, c.overlap.trained, cohort))
    rec_rows = [[scope] + ["n/a" if x is None else fmt_ratio(x.k, x.n) for x in (
        stats.recovery(c.sides[0].loc[sorted(tasks)]), stats.recovery(c.sides[1].loc[sorted(tasks)]))]
        for scope, tasks in c.scopes if tasks]
    tables.append(Table("Recovery: first-round failures solved in round 2", ["tasks in", r.base, r.new], rec_rows,
                        "selected cohort" if cohort else None))
    moves = transitions_table(r.transitions, cohort)
    return tables + ([moves] if moves else [])


def _plots(c: Comparison) -> list[Bars | Heatmap | Lines]:
    r, opts = c.result, c.opts
    main = [s for scope, s in c.summaries if scope == "all tasks"]
    suffix = " (selected cohort)" if c.cohort else ""
    plots: list[Bars | Heatmap | Lines] = [Bars(
        f"Mean tasks solved on the {len(c.shared)} shared tasks, "
        f"{opts.confidence:.0%} intervals for {stats.TARGETS[opts.interval]}{suffix}",
        [s.config for s in main], [s.tasks for s in main], [s.mean for s in main], [s.interval for s in main])]
    order = _task_order(c.changes)
    for round_no in r.rounds_shown:
        plot = heatmap(c.counts, [r.base, r.new], order, round_no, suffix)
        plot.name = f"tasks-r{round_no}" if len(r.rounds_shown) > 1 else plot.name
        plots.append(plot)
    return plots


ROUND_SHORT = {1: "r1", 2: "2r"}


def _task_order(changes: dict[int, list[stats.TaskChange]]) -> list[str]:
    """Tasks by their largest loss in any round shown, regressions first, then by name."""
    worst: dict[str, float] = {}
    for found in changes.values():
        for c in found:
            worst[c.task] = min(worst.get(c.task, c.change), c.change)
    return sorted(worst, key=lambda t: (worst[t], t))


def _task_records(changes: dict[int, list[stats.TaskChange]], order: list[str], trained: set[str],
                  asked: int | None) -> list[TaskChangeRow]:
    """One row per task in `order` (CSV, JSON, the viewer; data.TaskChangeRow says what it
    holds): the plain fields are the last round shown's, within two rounds where there is one."""
    by_round = {r: {c.task: c for c in found} for r, found in changes.items()}
    primary = max(changes)
    records = []
    for task in order:
        first = next(found[task] for found in by_round.values() if task in found)
        record = {
            "task": task, "trained_on": task in trained,
            "base_round1_trials": first.base[0], "base_round1": first.base[1],
            "base_round2_trials": first.base[2], "base_round2": first.base[3],
            "new_round1_trials": first.new[0], "new_round1": first.new[1],
            "new_round2_trials": first.new[2], "new_round2": first.new[3], "round": asked,
        }
        for r, found in by_round.items():
            c = found.get(task)
            fields = {"change": None, "p_value": None, "p_holm": None, "label": None, "smallest_p": None} if c is None else {
                "change": c.change, "p_value": c.p_value, "p_holm": c.p_holm, "label": c.label,
                "smallest_p": stats.smallest_p(c.base[2 * r - 2], c.new[2 * r - 2])}
            record.update({f"round{r}_{k}": v for k, v in fields.items()})
            if r == primary:
                record.update(fields)
        record["changed"] = any(found[task].change != 0 for found in by_round.values() if task in found)
        records.append(TaskChangeRow(**record))
    return records


def _change_cell(c: stats.TaskChange, i: int, equal_trials: bool) -> str:
    if c.change == 0:
        return "0"
    return f"{round(c.change * c.base[i]):+d}" if equal_trials else f"{100 * c.change:+.1f} pp"


def _task_table(changes: dict[int, list[stats.TaskChange]], base_counts, new_counts, base: str, new: str,
                trained: set[str], cohort: Cohort | None) -> Table:
    by_round = {r: {c.task: c for c in found} for r, found in changes.items()}
    both = len(by_round) > 1
    columns = ["task"] + (["trained on"] if trained else []) + [f"{base} r1", f"{new} r1", f"{base} 2r", f"{new} 2r"]
    for r in by_round:
        tag = f" ({ROUND_SHORT[r]})"
        columns += [f"change{tag}", "p (Holm)" + (tag if both else ""), "min p" + (tag if both else ""),
                    "label" + (tag if both else "")]
    columns += [f"recovered {base}", f"recovered {new}"]
    rows = []
    for task in _task_order(changes):
        first = next(found[task] for found in by_round.values() if task in found)
        (nb1, b1, nb2, b2), (nn1, n1, nn2, n2) = first.base, first.new
        row = [task] + (["yes" if task in trained else ""] if trained else []) + [
            f"{b1}/{nb1}", f"{n1}/{nn1}", f"{b2}/{nb2}" if nb2 else "n/a", f"{n2}/{nn2}" if nn2 else "n/a"]
        for r, found in by_round.items():
            c = found.get(task)
            if c is None:
                row += ["n/a"] * 4
                continue
            i = 2 * (r - 1)
            equal_trials = all(x.base[i] == x.new[i] for x in found.values())
            row += [_change_cell(c, i, equal_trials), starred(fmt_p(c.p_holm), cohort),
                    fmt_p(stats.smallest_p(c.base[i], c.new[i])), c.label]
        rows.append(row + [_recovered(counts.loc[task]) for counts in (base_counts, new_counts)])
    title = "Per task: successes out of counted trials (r1: round 1, 2r: within two rounds), regressions first"
    return Table(title, columns, rows, cohort_caption(cohort))


def _recovered(row) -> str:
    return f"{row['r2']}/{row['f2']}" if row["n2"] else "n/a"


def _bar_verdict(paired: dict[str, list[stats.PairedDifference]], opts: ReportOptions, bar: float,
                 label: str, named: dict[str, str]) -> tuple[list[str], str]:
    """The bar of `bar` (opts.bar), stated before any number: NEW passes when the lower
    bound of the interval of its gain over BASE (all shared tasks, the chosen round) is at
    least DELTA."""
    what = "in round 1" if opts.judged_round == 1 else "within two rounds"
    rule = (f"{label}: NEW must gain at least {bar:g} tasks {what}: the lower bound of the "
            f"{opts.confidence:.0%} interval (for {stats.TARGETS[opts.interval]}) must be at least {bar:g}.")
    found = [d for d in paired["all tasks"] if d.round == opts.judged_round]
    if not found:
        return [rule, f"FAIL: no shared task has a counted outcome {what}."], "FAIL"
    d = found[0]
    low = d.interval[0]
    verdict = "PASS" if stats.clears_bar(d, bar) else "FAIL"
    lead = [
        rule,
        f"{verdict}: gain {fmt_signed(d.difference)} tasks, {opts.confidence:.0%} interval "
        f"{fmt_interval(*d.interval)}; the lower bound {low:.2f} is {'at least' if verdict == 'PASS' else 'below'} "
        f"{bar:g}.",
    ]
    for scope, tasks in named.items():
        u = [x for x in paired.get(scope, []) if x.round == opts.judged_round]
        if u:
            lead.append(f"On {tasks}: gain {fmt_signed(u[0].difference)}, interval "
                        f"{fmt_interval(*u[0].interval)} (the verdict above is on all shared tasks).")
    return lead, verdict


class CompareRequest(ReportRequest):
    base: str
    new: str


def compare(request: CompareRequest, console, pages: PageWriter | None = None) -> tuple[Document, Path | None]:
    fmt = resolve_format(request.format, request.out)
    outcomes, base, new = load_pair(request.base, request.new, request.sources, request.runs_dir)
    doc = build_comparison(outcomes, base, new, request.options)
    return doc, write(doc, fmt, request.out, console, outcomes, pages)
