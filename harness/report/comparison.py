"""`harness compare`: per-task changes from BASE to NEW, paired statistics over their
shared tasks, recovery side by side, and the verdict of a pre-registered bar."""

from __future__ import annotations

from dataclasses import asdict
from pathlib import Path

from .. import stats
from ..accounting import describe, in_view
from ..errors import BadInput
from ..outcomes import Outcomes, load_pair
from .cohort import Cohort, cohort_caption, select_cohort, starred
from .document import Bars, Document, Table
from .formatting import fmt_interval, fmt_p, fmt_ratio, fmt_signed
from .options import ReportOptions
from .results import ReportRequest
from .metrics import (UNSEEN_SCOPES, differences_table, metric_bar_verdict, metric_differences, per_task_table,
                      suite_kind)
from .scope import held_out_pool, scope_notes, training_overlap
from .sections import (
    by_config, config_counts, headline_table, heatmap, name_the_view, scope_summaries, summary_data,
    summary_warnings, task_scopes, transitions_table, unfinished_notes,
)
from .writing import PageWriter, resolve_format, write


def _power_line(changes: list[stats.TaskChange], round_no: int, alpha: float) -> tuple[stats.TaskPower | None, str | None]:
    if not changes:
        return None, None
    i = round_no - 1
    power = stats.task_power([c.base[2 * i] for c in changes], [c.new[2 * i] for c in changes], alpha)
    return power, power.sentence(len(changes), alpha)


def build_comparison(outcomes: Outcomes, base: str, new: str, opts: ReportOptions = ReportOptions()) -> Document:
    """Per-task changes from BASE to NEW, paired statistics over their shared tasks,
    recovery side by side, and the verdict of a pre-registered bar."""
    if opts.bar is not None and opts.cohort is not None:
        raise BadInput("--pre-registered-bar cannot be judged on a selected cohort (--cohort): its intervals "
                       "are not valid; drop one of them")
    frame, cohort = select_cohort(in_view(outcomes.frame, opts.accounting), opts)
    counts = stats.task_counts(frame)
    base_all, new_all = config_counts(counts, base), config_counts(counts, new)
    shared = sorted(set(base_all.index) & set(new_all.index))
    if not shared:
        raise BadInput(f"{base} and {new} share no tasks with counted trials "
                       f"({base}: {len(base_all)} tasks, {new}: {len(new_all)} tasks)")
    infos = [outcomes.configs[base], outcomes.configs[new]]
    overlap = training_overlap(infos, set(shared))
    pool = held_out_pool(infos, set(shared))
    scopes = task_scopes(overlap, set(shared), set(shared), pool)
    writers = suite_kind(infos)
    if opts.metric is not None and writers is None:
        raise BadInput(f"--metric {opts.metric}: neither {base} nor {new} writes test suites (harness run --kind tests)")
    suite_diffs = metric_differences(frame, base, new, scopes, opts) if writers else None
    summaries = scope_summaries(counts, [base, new], scopes, opts)
    paired = {}
    for scope, tasks in scopes:
        if tasks:
            ordered = sorted(tasks)
            paired[scope] = stats.paired_differences(
                base_all.loc[ordered], new_all.loc[ordered], opts.interval, opts.resamples, opts.seed, opts.confidence)
    two_rounds = bool(((base_all["n2"] > 0) & (new_all["n2"] > 0)).any())
    shown = [r for r in opts.shown_rounds(2 if two_rounds else 1) if r == 1 or two_rounds] or [1]
    changes = {r: stats.task_changes(base_all.loc[shared], new_all.loc[shared], r, opts.alpha) for r in shown}
    primary = shown[-1]  # the round the records' plain fields and the power line are about
    power, power_sentence = _power_line(changes[primary], primary, opts.alpha)
    round_name = " and ".join(ROUND_NAMES[r] for r in shown)

    doc = Document("compare", f"{new} against {base}")
    # suite_diffs is None only without writers, and --metric without them raised above
    if opts.bar is not None and opts.metric is not None and suite_diffs is not None:
        doc.lead, doc.verdict = metric_bar_verdict(suite_diffs, opts, opts.metric, opts.bar)
    elif opts.bar is not None:
        doc.lead, doc.verdict = _bar_verdict(paired, opts, opts.bar)
    doc.warnings = summary_warnings(summaries, cohort)
    doc.notes += [cohort.note] if cohort else []
    doc.notes.append(describe(opts.accounting))
    doc.notes.append(opts.method())
    doc.notes.append(
        f"Suite-level test over the shared tasks: the stratified exact test of \"no change on any task\" (NEW's "
        "successes summed over tasks against their exact null distribution, the convolution of each task's "
        "hypergeometric split of its successes between the two configs; two-sided, twice the smaller tail). "
        f"Per task: Fisher's exact test of the two success counts ({round_name}), Holm-corrected across the "
        f"{len(changes[primary])} tasks{' of each round' if len(shown) > 1 else ''}; a gain or regression without "
        f"\"(n.s.)\" survives the correction at {opts.alpha:g}; \"min p\" is the smallest p-value the task's trial "
        "counts allow." + ("" if len(shown) > 1 or not two_rounds else
                           f" Only {ROUND_NAMES[primary]} is labelled (--round); without --round both are."))
    if power_sentence:
        doc.warnings.append(power_sentence)
    only_base, only_new = sorted(set(base_all.index) - set(shared)), sorted(set(new_all.index) - set(shared))
    for name, only in ((base, only_base), (new, only_new)):
        if only:
            doc.notes.append(f"Left out, only {name} has counted trials of: {', '.join(only)}")
    doc.notes += scope_notes(outcomes.frame[outcomes.frame["task"].isin(shared)], [base, new], infos, set(shared))
    doc.notes += overlap.notes + pool.notes
    if writers:
        doc.notes.append(writers)
    doc.notes += unfinished_notes(by_config(frame, [base, new]), counts)

    doc.tables.append(headline_table(summaries, [base, new], opts.confidence, cohort))
    ci = f"{opts.confidence:.0%} CI"
    rows = []
    for scope, diffs in paired.items():
        for d in diffs:
            rows.append([scope, "round 1" if d.round == 1 else "two rounds", str(d.tasks), f"{d.base:.2f}",
                         f"{d.new:.2f}", fmt_signed(d.difference), starred(fmt_interval(*d.interval), cohort),
                         starred(fmt_p(d.p_value), cohort)])
    doc.tables.append(Table(f"Difference in mean tasks solved ({new} minus {base})",
                            ["tasks in", "success in", "N", base, new, "difference", ci, "p (exact)"], rows,
                            cohort_caption(cohort)))
    suite_tasks = None
    if suite_diffs is not None:
        doc.tables.append(differences_table(suite_diffs, base, new, opts, cohort, frame))
        table, suite_tasks = per_task_table(frame, base, new, shared, opts.judged_round)
        doc.tables.append(table)
    doc.tables.append(_task_table(changes, base_all, new_all, base, new, overlap.trained, cohort))
    rec_rows = []
    for scope, tasks in scopes:
        if tasks:
            rec_rows.append([scope] + ["n/a" if r is None else fmt_ratio(r.k, r.n) for r in (
                stats.recovery(base_all.loc[sorted(tasks)]), stats.recovery(new_all.loc[sorted(tasks)]))])
    doc.tables.append(Table("Recovery: first-round failures solved in round 2", ["tasks in", base, new], rec_rows,
                            "selected cohort" if cohort else None))
    moves, moves_data = transitions_table(by_config(frame[frame["task"].isin(shared)], [base, new]),
                                          {c: outcomes.configs[c].feedback for c in (base, new)}, cohort)
    doc.tables += [moves] if moves else []

    main = [s for scope, s in summaries if scope == "all tasks"]
    suffix = " (selected cohort)" if cohort else ""
    doc.plots.append(Bars(f"Mean tasks solved on the {len(shared)} shared tasks, "
                          f"{opts.confidence:.0%} intervals for {stats.TARGETS[opts.interval]}{suffix}",
                          [s.config for s in main], [s.tasks for s in main], [s.mean for s in main],
                          [s.interval for s in main]))
    order = _task_order(changes)
    for r in shown:
        plot = heatmap(counts, [base, new], order, r, suffix)
        plot.name = f"tasks-r{r}" if len(shown) > 1 else plot.name
        doc.plots.append(plot)

    doc.records = _task_records(changes, order, overlap.trained, opts.round)
    doc.data = {
        "base": base, "new": new, "round": opts.round, "rounds_shown": shown,
        "interval": opts.interval_data(valid=cohort is None),
        "warnings": doc.warnings,
        "cohort": None if cohort is None else {"note": cohort.note, "ranked_by_round": opts.judged_round,
                                               "inflation": cohort.inflation},
        "verdict": doc.verdict, "lead": doc.lead,
        "summaries": [summary_data(scope, s, opts, cohort is None) for scope, s in summaries],
        "paired": {scope: [dict(asdict(d), p_value_valid=cohort is None) for d in diffs]
                   for scope, diffs in paired.items()},
        "task_power": None if power is None else asdict(power),
        "tasks": doc.records,
        "configs": {c: outcomes.configs[c].model_dump() for c in (base, new)},
        "training_overlap": sorted(overlap.trained) if overlap.trained else None,
        "training_unknown": overlap.unknown,
        "transitions": moves_data,
        "unseen_pool": sorted(pool.unseen) if pool.unseen else None,
        "suite_metrics": None if suite_diffs is None else {
            scope: [dict(asdict(d), p_value_valid=cohort is None) for d in diffs] for scope, diffs in suite_diffs.items()},
        "suite_tasks": suite_tasks,
    }
    return name_the_view(doc, opts.accounting)


ROUND_NAMES = {1: "round 1", 2: "within two rounds"}
ROUND_SHORT = {1: "r1", 2: "2r"}


def _task_order(changes: dict[int, list[stats.TaskChange]]) -> list[str]:
    """Tasks by their largest loss in any round shown, regressions first, then by name."""
    worst: dict[str, float] = {}
    for found in changes.values():
        for c in found:
            worst[c.task] = min(worst.get(c.task, c.change), c.change)
    return sorted(worst, key=lambda t: (worst[t], t))


def _task_records(changes: dict[int, list[stats.TaskChange]], order: list[str], trained: set[str],
                  asked: int | None) -> list[dict]:
    """One flat record per task (CSV, JSON, the viewer): its counts, and per round shown the
    change, p-values and label as `round<r>_<field>`; the plain fields are the asked round's
    (without --round, the last shown: within two rounds where there is one); `changed`: in
    any round shown."""
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
        records.append(record)
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


def _bar_verdict(paired: dict[str, list[stats.PairedDifference]], opts: ReportOptions, bar: float) -> tuple[list[str], str]:
    """The pre-registered bar of `bar` (opts.bar), stated before any number: NEW passes when
    the lower bound of the interval of its gain over BASE (all shared tasks, the chosen
    round) is at least DELTA."""
    what = "in round 1" if opts.judged_round == 1 else "within two rounds"
    rule = (f"Pre-registered bar: NEW must gain at least {bar:g} tasks {what}: the lower bound of the "
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
    for scope, tasks in UNSEEN_SCOPES.items():
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
