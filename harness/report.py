"""Reports: per-configuration headline numbers (`harness report`) and per-task comparisons
of two configurations (`harness compare`), rendered as rich terminal tables, Markdown, one
self-contained HTML file, JSON or CSV.

A report is built once as a Document (lead lines, notes, formatted tables, plot data, raw
numbers) and then rendered; every number in it comes from harness.stats. Notes that a
comparison is not like for like are computed from what the sources recorded, never typed.

Default output: `--format` other than the terminal writes under `reports/`: the
repository's own `reports/` folder when the harness runs from a source checkout, else a
`reports/` folder in the current directory (an installed package's folder is no place for
a user's output).
"""

from __future__ import annotations

import base64
import html
import io
import json
import re
import textwrap
from dataclasses import asdict, dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Literal

import numpy as np
import pandas as pd
from pydantic import BaseModel, Field

from . import stats
from .accounting import Accounting, aider_summary, describe, in_view
from .errors import BadInput
from .outcomes import ConfigInfo, Outcomes
from .paths import bundled_dir

FILE_FORMATS = ("md", "html", "json", "csv")


class ReportOptions(BaseModel):
    resamples: int = Field(stats.RESAMPLES, ge=100)
    seed: int = stats.SEED
    confidence: float = Field(stats.CONFIDENCE, gt=0, lt=1)
    interval: stats.Target = "tasks"             # --interval: what the intervals are about
    cohort: int | None = Field(None, ge=1)      # --cohort best:K
    round: Literal[1, 2] = 2                     # the round a cohort is ranked by; compare: of the per-task tests
    bar: float | None = None                     # compare: --pre-registered-bar DELTA
    alpha: float = stats.ALPHA
    accounting: Accounting = "harness"           # how unfinished trials count (accounting.py)

    def method(self) -> str:
        return stats.interval_method(self.interval, self.resamples, self.seed, self.confidence)

    def interval_data(self, valid: bool) -> dict:
        """What a JSON reader needs to use the intervals: their target, in words, and
        whether they are valid (not for a selected cohort)."""
        return {"target": self.interval, "about": stats.TARGETS[self.interval], "method": self.method(),
                "confidence": self.confidence, "resamples": self.resamples, "seed": self.seed, "valid": valid}


# --- formatting: means two decimals, percents one -----------------------------------------


def fmt_mean(mean: float, tasks: int) -> str:
    """`11.25 (43.3%)`: expected tasks solved and its percent of the suite."""
    return f"{mean:.2f} ({100 * mean / tasks:.1f}%)" if tasks else "n/a"


def fmt_ratio(k: int, n: int) -> str:
    """`16/59 (27.1%)`."""
    return f"{k}/{n} ({100 * k / n:.1f}%)" if n else f"{k}/{n} (n/a)"


def fmt_interval(low: float, high: float) -> str:
    return f"[{low:.2f}, {high:.2f}]"


def fmt_signed(x: float) -> str:
    return f"{x:+.2f}"


def fmt_p(p: float) -> str:
    return "<0.001" if p < 0.001 else f"{p:.3f}"


def fmt_percent(x: float) -> str:
    return "n/a" if x != x else f"{100 * x:.1f}%"


# --- the document ------------------------------------------------------------------------


@dataclass
class Table:
    title: str
    columns: list[str]
    rows: list[list[str]]
    caption: str | None = None


@dataclass
class Bars:
    """Grouped bars: mean tasks solved per config, round 1 and two rounds, with intervals."""

    title: str
    configs: list[str]
    tasks: list[int]
    means: list[tuple[float, float]]
    intervals: list[tuple[tuple[float, float], tuple[float, float]]]
    name: str = "solved"


@dataclass
class Heatmap:
    """Successes out of finished trials, one row per task, one column per config."""

    title: str
    tasks: list[str]
    configs: list[str]
    successes: np.ndarray   # (tasks, configs), -1 where a config has no finished trial
    trials: np.ndarray
    name: str = "tasks"


@dataclass
class Lines:
    """One line per task across checkpoints in lineage order: successes out of T."""

    title: str
    checkpoints: list[str]
    tasks: list[str]
    successes: np.ndarray   # (tasks, checkpoints), -1 where a checkpoint has no finished trial
    trials: np.ndarray
    ylabel: str
    name: str = "lineage"


@dataclass
class Document:
    kind: str                         # "report", "compare" or "lineage"
    title: str
    lead: list[str] = field(default_factory=list)     # said before any number
    warnings: list[str] = field(default_factory=list)  # said next: what makes numbers unreliable
    notes: list[str] = field(default_factory=list)
    tables: list[Table] = field(default_factory=list)
    plots: list[Bars | Heatmap | Lines] = field(default_factory=list)
    data: dict = field(default_factory=dict)          # raw numbers, for JSON
    records: list[dict] = field(default_factory=list)  # one flat row each, for CSV
    verdict: str | None = None                        # PASS or FAIL of a pre-registered bar
    pages: str | None = None                          # HTML: the viewer's pages behind it (view/static.py)
    links: dict[str, str] = field(default_factory=dict)  # HTML: a table row's first cell -> its page's href


# --- scope notes -------------------------------------------------------------------------


def _short(h) -> str:
    return f" ({h[:12]})" if isinstance(h, str) and h else ""


def _known(value) -> bool:
    return value is not None and not (isinstance(value, float) and value != value) and value is not pd.NA


# (what a note calls it, the frame columns: the name shown and the hash that decides "differs")
_SETTINGS = [
    ("rounds", "rounds", None),
    ("trial count", "planned_trials", None),
    ("prompt contract", "contract", "contract_hash"),
    ("suite", "suite", "suite_hash"),
    ("agent profile", "agent", "agent_hash"),
    ("Aider version", "aider_version", None),
    ("sampling settings", "sampling", None),
]


def _setting_values(frame: pd.DataFrame, name_col: str, hash_col: str | None) -> dict[str, dict[object, str]]:
    """Per config: each distinct recorded value of a setting (keyed by its hash where one is
    recorded) and how to show it."""
    cols = ["config", name_col] + ([hash_col] if hash_col else [])
    out: dict[str, dict[object, str]] = {}
    for row in frame[cols].drop_duplicates().itertuples(index=False):
        config, name = row[0], row[1]
        digest = row[2] if hash_col else None
        key = digest if _known(digest) else name
        values = out.setdefault(str(config), {})
        if _known(key):
            values[key] = f"{name}{_short(digest)}" if _known(name) else f"hash {digest[:12]}"
    return out


def scope_notes(frame: pd.DataFrame, configs: list[str], infos: list[ConfigInfo],
                shared_tasks: set[str] | None = None) -> list[str]:
    """A note for every setting that can change a number in which the configurations
    differ, or in which one configuration's own trials differ; one for each setting some
    configuration does not record while another does; one for tasks whose content hash
    differs between configurations. For any number of configurations, one included."""
    notes = []
    frame = frame[frame["config"].isin(configs)]
    for label, name_col, hash_col in _SETTINGS:
        values = _setting_values(frame, name_col, hash_col)
        known = [c for c in configs if values.get(c)]
        unknown = [c for c in configs if not values.get(c)]
        for c in known:
            if len(values[c]) > 1:
                notes.append(f"Not like for like inside {c}: its trials differ in {label}: "
                             + "; ".join(sorted(values[c].values())))
        if len({frozenset(values[c]) for c in known}) > 1:
            notes.append(f"Not like for like: the configs differ in {label}: "
                         + "; ".join(f"{c}: {', '.join(sorted(values[c].values()))}" for c in known))
        if known and unknown:
            notes.append(f"The {label} is not recorded for {', '.join(unknown)}, so it cannot be checked.")
    hashed = [i for i in infos if i.task_hashes]
    if len(hashed) > 1:
        tasks = set.intersection(*(set(i.task_hashes) for i in hashed))
        if shared_tasks is not None:
            tasks &= shared_tasks
        differ = sorted(t for t in tasks if len({i.task_hashes[t] for i in hashed}) > 1)
        if differ:
            notes.append(f"Not like for like: task content differs between configs for {len(differ)} "
                         f"task{'s' if len(differ) > 1 else ''}: {', '.join(differ)}")
    return notes


def trained_tasks(info: ConfigInfo, tasks: set[str]) -> set[str]:
    """The tasks among `tasks` (slugs) that the config's adapter was trained on. Curricula
    name suite tasks `<suite>/<slug>`; such a name counts when its suite is the config's."""
    suite = (info.suite or "").split(" ")[0]
    found = set()
    for name in info.trained_on_tasks or []:
        owner, _, slug = name.rpartition("/")
        if name in tasks:
            found.add(name)
        elif owner and slug in tasks and (owner == suite or not suite):
            found.add(slug)
    return found


@dataclass
class Overlap:
    """Which tasks the compared configurations were trained on."""

    notes: list[str]
    trained: set[str]        # tasks some config is known to have been trained on
    unknown: list[str]       # configs whose training set is not (fully) known

    @property
    def unseen_known(self) -> bool:
        """"Unseen in training" can be claimed: every training set is known and some is not empty."""
        return not self.unknown and bool(self.trained)


def training_overlap(infos: list[ConfigInfo], tasks: set[str]) -> Overlap:
    """Notes on which suite tasks each adapter was trained on. An adapter whose training set
    is not recorded is a state of its own: no task is then claimed unseen in training."""
    notes, union, unknown = [], set(), []
    for info in infos:
        who = f"{info.name}" + (f" (adapter {info.adapter})" if info.adapter else "")
        seen = sorted(trained_tasks(info, tasks))
        union |= set(seen)
        if info.training_unknown:
            unknown.append(info.name)
            notes.append(f"Training set unknown: {who} lists no complete training set"
                         + (f" (at least {len(seen)} of the {len(tasks)} tasks: {', '.join(seen)})" if seen else "")
                         + ", so no task is claimed unseen in training.")
        elif info.trained_on_tasks is not None:
            notes.append(f"Training overlap: {who} was trained on {len(seen)} of the {len(tasks)} tasks"
                         + (f": {', '.join(seen)}" if seen else "") + ".")
    overlap = Overlap(notes, union, unknown)
    if overlap.unseen_known:
        notes.append(f"Every headline number is shown twice: all {len(tasks)} tasks, and the "
                     f"{len(tasks - union)} tasks no compared config was trained on.")
    return overlap


def _by_config(frame: pd.DataFrame, configs: list[str]) -> dict[str, pd.DataFrame]:
    """Each config's rows, split once (comparing a 100,000-row string column per config
    costs more than all the statistics)."""
    groups = dict(tuple(frame.groupby("config", sort=False)))
    return {name: groups.get(name, frame.iloc[0:0]) for name in configs}


def _unfinished_notes(groups: dict[str, pd.DataFrame], counts: pd.DataFrame) -> list[str]:
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


@dataclass
class Cohort:
    note: str
    inflation: dict[str, float]


def _cohort(frame: pd.DataFrame, opts: ReportOptions) -> tuple[pd.DataFrame, Cohort | None]:
    """The selected trials, and what a reader must know about them: how they were picked,
    how much the selection raised each mean, and that intervals and p-values do not hold."""
    k = opts.cohort
    if k is None:
        return frame, None
    trials = frame.groupby("config")["trial"].nunique()
    selected = stats.best_trials(frame, k, opts.round)
    inflation = stats.cohort_inflation(frame, selected, opts.round)
    ranked = "in round 1" if opts.round == 1 else "within two rounds"
    if trials.nunique() == 1:
        picked = f"best {k} of {int(trials.iloc[0])} trials"
    else:
        picked = f"best {k} of each config's trials ({', '.join(f'{c}: {t}' for c, t in trials.items())})"
    note = (f"Selected cohort: {picked}, ranked by tasks solved {ranked}. Selection raises the mean solved "
            f"{ranked} over the mean of all trials, on the same data, by "
            + ", ".join(f"{fmt_signed(v)} tasks ({c})" for c, v in inflation.items())
            + ". Intervals and p-values marked * are not valid for a selected cohort: they treat the chosen "
            "trials as a random draw.")
    return selected, Cohort(note, inflation)


def _mark(text: str, cohort: Cohort | None) -> str:
    return f"{text} *" if cohort else text


# --- building ----------------------------------------------------------------------------


def _config_counts(counts: pd.DataFrame, name: str, tasks: set[str] | None = None) -> pd.DataFrame:
    if name not in counts.index.get_level_values(0):
        return counts.iloc[0:0].droplevel(0)
    rows = counts.loc[name]
    return rows if tasks is None else rows[rows.index.isin(tasks)]


def _caption(cohort: Cohort | None) -> str | None:
    return "selected cohort; * not valid for a selected cohort" if cohort else None


def _headline(summaries: list[tuple[str, stats.Summary]], configs: list[str], confidence: float,
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
            two_ci = _mark(fmt_interval(l2, h2), cohort)
        else:
            two, two_ci = "n/a (no two-round outcome)", "n/a"
        rows.append([s.config] + ([scope] if with_scope else []) + [
            str(s.tasks), str(s.trials), fmt_mean(s.mean[0], s.tasks), _mark(fmt_interval(l1, h1), cohort),
            two, two_ci, "n/a" if s.recovery is None else fmt_ratio(s.recovery.k, s.recovery.n)])
    present = {s.config for _, s in summaries}
    for name in configs:
        if name not in present:
            rows.append([name] + (["all tasks"] if with_scope else []) + ["0", "0", "no counted trial"] + ["n/a"] * 4)
    return Table("Tasks solved (mean over trials, of N tasks)", columns, rows, _caption(cohort))


def _summaries(
    counts: pd.DataFrame, configs: list[str], scopes: list[tuple[str, set[str] | None]], opts: ReportOptions,
) -> list[tuple[str, stats.Summary]]:
    """Summaries with intervals of each config over each scope (all tasks, unseen)."""
    found = []
    for scope, tasks in scopes:
        for name in configs:
            c = _config_counts(counts, name, tasks)
            if len(c):
                summary = stats.summarize(name, c, with_pass_at_k=scope == "all tasks")
                summary.interval = stats.intervals_of(c, opts.interval, opts.resamples, opts.seed, opts.confidence)
                found.append((scope, summary))
    return found


def _warnings(summaries: list[tuple[str, stats.Summary]], cohort: Cohort | None) -> list[str]:
    warnings = []
    fewest: dict[str, int] = {}
    for scope, s in summaries:
        fewest[scope] = min(fewest.get(scope, s.tasks), s.tasks)
    small = {scope: n for scope, n in fewest.items() if n < stats.MIN_TASKS}
    if small:
        here = None if list(small) == ["all tasks"] else ", ".join(f"{n} {scope}" for scope, n in small.items())
        warnings.append(stats.small_suite_warning(min(small.values()), here))
    if cohort:
        warnings.append("Warning: a selected cohort: intervals and p-values are not valid (marked *).")
    return warnings


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
            "n/a" if h.tokens_per_trial is None else f"{h.tokens_per_trial:,.2f}",
            "n/a" if h.cost_per_trial is None else f"${h.cost_per_trial:.4f}",
        ])
    return Table("Agent health", ["config", "task-trials", "malformed responses",
                                  "exhausted context", "test timeouts", "tokens/trial", "cost/trial"],
                 rows, "selected cohort" if cohort else None), data


def _heatmap(counts: pd.DataFrame, configs: list[str], tasks: list[str], round_no: int, suffix: str) -> Heatmap:
    n_col, col = f"n{round_no}", f"c{round_no}"
    wide = counts.reset_index().pivot(index="task", columns="config", values=[col, n_col])
    wide = wide.reindex(index=tasks)
    trials = wide[n_col].reindex(columns=configs).fillna(0).to_numpy(dtype=int)
    successes = np.where(trials > 0, wide[col].reindex(columns=configs).fillna(-1).to_numpy(dtype=int), -1)
    what = "in round 1" if round_no == 1 else "within two rounds"
    return Heatmap(f"Successes {what}, out of counted trials{suffix}", tasks, configs, successes, trials)


def _summary_data(scope: str, s: stats.Summary, opts: ReportOptions, valid: bool) -> dict:
    (l1, h1), (l2, h2) = s.interval
    return {
        "config": s.config, "tasks_in": scope, "tasks": s.tasks, "trials": s.trials,
        "round1_mean": s.mean[0], "round1_percent": s.percent(1), "round1_low": l1, "round1_high": h1,
        "round2_tasks": s.tasks2,
        "round2_mean": s.mean[1], "round2_percent": s.percent(2), "round2_low": l2, "round2_high": h2,
        "recovered": None if s.recovery is None else s.recovery.k,
        "first_round_failures": None if s.recovery is None else s.recovery.n,
        "interval_target": opts.interval, "interval_valid": valid,
    }


def _scopes(overlap: Overlap, tasks: set[str], all_tasks: set[str] | None = None) -> list[tuple[str, set[str] | None]]:
    scopes: list[tuple[str, set[str] | None]] = [("all tasks", all_tasks)]
    if overlap.unseen_known:
        scopes.append(("unseen in training", tasks - overlap.trained))
    return scopes


def _name_the_view(doc: Document, view: Accounting) -> Document:
    """Every table and plot says which accounting view its numbers are in."""
    label = f"[{view} accounting]"
    for item in (*doc.tables, *doc.plots):
        if not item.title.endswith(label):
            item.title = f"{item.title} {label}"
    doc.data["accounting"] = view
    return doc


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
    frame, cohort = _cohort(in_view(outcomes.frame, opts.accounting), opts)
    counts = stats.task_counts(frame)
    tasks = set(counts.index.get_level_values("task"))
    infos = [outcomes.configs[c] for c in configs]
    overlap = training_overlap(infos, tasks)
    summaries = _summaries(counts, configs, _scopes(overlap, tasks), opts)

    doc = Document("report", "Results by configuration")
    doc.warnings = _warnings(summaries, cohort)
    doc.notes += [cohort.note] if cohort else []
    doc.notes.append(describe(opts.accounting))
    doc.notes.append(opts.method())
    doc.notes.append("Mean tasks solved: each task's success rate over its counted trials, summed over "
                     "tasks (with every trial counted, the mean over trials of the tasks solved). "
                     "Recovery: first-round failures over the task-trials with a two-round outcome, and how "
                     "many round 2 solved.")
    doc.notes += scope_notes(outcomes.frame, configs, infos)
    doc.notes += overlap.notes
    groups = _by_config(frame, configs)
    doc.notes += _unfinished_notes(groups, counts)

    doc.tables.append(_headline(summaries, configs, opts.confidence, cohort))
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

    suffix = " (selected cohort)" if cohort else ""
    doc.plots.append(Bars(f"Mean tasks solved, {opts.confidence:.0%} intervals for {stats.TARGETS[opts.interval]}{suffix}",
                          [s.config for s in main], [s.tasks for s in main], [s.mean for s in main],
                          [s.interval for s in main]))
    doc.plots.append(_heatmap(counts, [s.config for s in main], sorted(tasks), 2, suffix))

    doc.records = [_summary_data(scope, s, opts, cohort is None) for scope, s in summaries]
    doc.data = {
        "interval": opts.interval_data(valid=cohort is None),
        "warnings": doc.warnings,
        "cohort": None if cohort is None else {"note": cohort.note, "ranked_by_round": opts.round,
                                               "inflation": cohort.inflation},
        "method": opts.method(),
        "summaries": doc.records,
        "pass_at_k": {s.config: {key: {k: asdict(v) for k, v in per.items()} for key, per in s.pass_at_k.items()}
                      for s in main},
        "states": states_data,
        "health": health_data,
        "configs": {c: outcomes.configs[c].model_dump() for c in configs},
        "training_overlap": sorted(overlap.trained) if overlap.trained else None,
        "training_unknown": overlap.unknown,
        "aider_summary": aider_rows,
    }
    return _name_the_view(doc, opts.accounting)


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
    frame, cohort = _cohort(in_view(outcomes.frame, opts.accounting), opts)
    counts = stats.task_counts(frame)
    base_all, new_all = _config_counts(counts, base), _config_counts(counts, new)
    shared = sorted(set(base_all.index) & set(new_all.index))
    if not shared:
        raise BadInput(f"{base} and {new} share no tasks with counted trials "
                       f"({base}: {len(base_all)} tasks, {new}: {len(new_all)} tasks)")
    infos = [outcomes.configs[base], outcomes.configs[new]]
    overlap = training_overlap(infos, set(shared))
    scopes = _scopes(overlap, set(shared), set(shared))
    summaries = _summaries(counts, [base, new], scopes, opts)
    paired = {}
    for scope, tasks in scopes:
        if tasks:
            ordered = sorted(tasks)
            paired[scope] = stats.paired_differences(
                base_all.loc[ordered], new_all.loc[ordered], opts.interval, opts.resamples, opts.seed, opts.confidence)
    changes = stats.task_changes(base_all.loc[shared], new_all.loc[shared], opts.round, opts.alpha)
    power, power_sentence = _power_line(changes, opts.round, opts.alpha)
    round_name = "round 1" if opts.round == 1 else "within two rounds"

    doc = Document("compare", f"{new} against {base}")
    if opts.bar is not None:
        doc.lead, doc.verdict = _bar_verdict(paired, opts)
    doc.warnings = _warnings(summaries, cohort)
    doc.notes += [cohort.note] if cohort else []
    doc.notes.append(describe(opts.accounting))
    doc.notes.append(opts.method())
    doc.notes.append(
        f"Suite-level test over the shared tasks: the stratified exact test of \"no change on any task\" (NEW's "
        "successes summed over tasks against their exact null distribution, the convolution of each task's "
        "hypergeometric split of its successes between the two configs; two-sided, twice the smaller tail). "
        f"Per task: Fisher's exact test of the two success counts ({round_name}), Holm-corrected across the "
        f"{len(changes)} tasks; a gain or regression without \"(n.s.)\" survives the correction at {opts.alpha:g}; "
        "\"min p\" is the smallest p-value the task's trial counts allow.")
    if power_sentence:
        doc.warnings.append(power_sentence)
    only_base, only_new = sorted(set(base_all.index) - set(shared)), sorted(set(new_all.index) - set(shared))
    for name, only in ((base, only_base), (new, only_new)):
        if only:
            doc.notes.append(f"Left out, only {name} has counted trials of: {', '.join(only)}")
    doc.notes += scope_notes(outcomes.frame[outcomes.frame["task"].isin(shared)], [base, new], infos, set(shared))
    doc.notes += overlap.notes
    doc.notes += _unfinished_notes(_by_config(frame, [base, new]), counts)

    doc.tables.append(_headline(summaries, [base, new], opts.confidence, cohort))
    ci = f"{opts.confidence:.0%} CI"
    rows = []
    for scope, diffs in paired.items():
        for d in diffs:
            rows.append([scope, "round 1" if d.round == 1 else "two rounds", str(d.tasks), f"{d.base:.2f}",
                         f"{d.new:.2f}", fmt_signed(d.difference), _mark(fmt_interval(*d.interval), cohort),
                         _mark(fmt_p(d.p_value), cohort)])
    doc.tables.append(Table(f"Difference in mean tasks solved ({new} minus {base})",
                            ["tasks in", "success in", "N", base, new, "difference", ci, "p (exact)"], rows,
                            _caption(cohort)))
    doc.tables.append(_task_table(changes, base, new, opts.round, overlap.trained, cohort))
    rec_rows = []
    for scope, tasks in scopes:
        if tasks:
            rec_rows.append([scope] + ["n/a" if r is None else fmt_ratio(r.k, r.n) for r in (
                stats.recovery(base_all.loc[sorted(tasks)]), stats.recovery(new_all.loc[sorted(tasks)]))])
    doc.tables.append(Table("Recovery: first-round failures solved in round 2", ["tasks in", base, new], rec_rows,
                            "selected cohort" if cohort else None))

    main = [s for scope, s in summaries if scope == "all tasks"]
    suffix = " (selected cohort)" if cohort else ""
    doc.plots.append(Bars(f"Mean tasks solved on the {len(shared)} shared tasks, "
                          f"{opts.confidence:.0%} intervals for {stats.TARGETS[opts.interval]}{suffix}",
                          [s.config for s in main], [s.tasks for s in main], [s.mean for s in main],
                          [s.interval for s in main]))
    doc.plots.append(_heatmap(counts, [base, new], [c.task for c in changes], opts.round, suffix))

    trained = overlap.trained
    doc.records = [{
        "task": c.task, "trained_on": c.task in trained,
        "base_round1_trials": c.base[0], "base_round1": c.base[1], "base_round2_trials": c.base[2], "base_round2": c.base[3],
        "new_round1_trials": c.new[0], "new_round1": c.new[1], "new_round2_trials": c.new[2], "new_round2": c.new[3],
        "round": opts.round, "change": c.change, "p_value": c.p_value, "p_holm": c.p_holm, "label": c.label,
        "smallest_p": stats.smallest_p(c.base[2 * opts.round - 2], c.new[2 * opts.round - 2]),
    } for c in changes]
    doc.data = {
        "base": base, "new": new, "round": opts.round,
        "interval": opts.interval_data(valid=cohort is None),
        "warnings": doc.warnings,
        "cohort": None if cohort is None else {"note": cohort.note, "ranked_by_round": opts.round,
                                               "inflation": cohort.inflation},
        "verdict": doc.verdict, "lead": doc.lead,
        "summaries": [_summary_data(scope, s, opts, cohort is None) for scope, s in summaries],
        "paired": {scope: [dict(asdict(d), p_value_valid=cohort is None) for d in diffs]
                   for scope, diffs in paired.items()},
        "task_power": None if power is None else asdict(power),
        "tasks": doc.records,
        "configs": {c: outcomes.configs[c].model_dump() for c in (base, new)},
        "training_overlap": sorted(trained) if trained else None,
        "training_unknown": overlap.unknown,
    }
    return _name_the_view(doc, opts.accounting)


def _task_table(changes: list[stats.TaskChange], base: str, new: str, round_no: int,
                trained: set[str], cohort: Cohort | None) -> Table:
    columns = ["task"] + (["trained on"] if trained else []) + [
        f"{base} r1", f"{new} r1", f"{base} 2r", f"{new} 2r", f"change ({'r1' if round_no == 1 else '2r'})",
        "p (Holm)", "min p", "label", f"recovered {base}", f"recovered {new}"]
    i = 2 * (round_no - 1)
    equal_trials = all(c.base[i] == c.new[i] for c in changes)
    rows = []
    for c in changes:
        (nb1, b1, nb2, b2), (nn1, n1, nn2, n2) = c.base, c.new
        if c.change == 0:
            change = "0"
        else:
            change = f"{round(c.change * c.base[i]):+d}" if equal_trials else f"{100 * c.change:+.1f} pp"
        rows.append([c.task] + (["yes" if c.task in trained else ""] if trained else []) + [
            f"{b1}/{nb1}", f"{n1}/{nn1}", f"{b2}/{nb2}" if nb2 else "n/a", f"{n2}/{nn2}" if nn2 else "n/a", change,
            _mark(fmt_p(c.p_holm), cohort), fmt_p(stats.smallest_p(c.base[i], c.new[i])), c.label,
            f"{b2 - b1}/{nb2 - b1}" if nb2 else "n/a", f"{n2 - n1}/{nn2 - n1}" if nn2 else "n/a"])
    title = "Per task: successes out of counted trials (r1: round 1, 2r: within two rounds), regressions first"
    return Table(title, columns, rows, _caption(cohort))


def _bar_verdict(paired: dict[str, list[stats.PairedDifference]], opts: ReportOptions) -> tuple[list[str], str]:
    """The pre-registered bar, stated before any number: NEW passes when the lower bound of
    the interval of its gain over BASE (all shared tasks, the chosen round) is at least DELTA."""
    what = "in round 1" if opts.round == 1 else "within two rounds"
    rule = (f"Pre-registered bar: NEW must gain at least {opts.bar:g} tasks {what}: the lower bound of the "
            f"{opts.confidence:.0%} interval (for {stats.TARGETS[opts.interval]}) must be at least {opts.bar:g}.")
    found = [d for d in paired["all tasks"] if d.round == opts.round]
    if not found:
        return [rule, f"FAIL: no shared task has a counted outcome {what}."], "FAIL"
    d = found[0]
    low = d.interval[0]
    verdict = "PASS" if stats.clears_bar(d, opts.bar) else "FAIL"
    lead = [
        rule,
        f"{verdict}: gain {fmt_signed(d.difference)} tasks, {opts.confidence:.0%} interval "
        f"{fmt_interval(*d.interval)}; the lower bound {low:.2f} is {'at least' if verdict == 'PASS' else 'below'} "
        f"{opts.bar:g}.",
    ]
    if "unseen in training" in paired:
        u = [x for x in paired["unseen in training"] if x.round == opts.round]
        if u:
            lead.append(f"On the tasks no config was trained on: gain {fmt_signed(u[0].difference)}, interval "
                        f"{fmt_interval(*u[0].interval)} (the verdict above is on all shared tasks).")
    return lead, verdict


# --- a loop's lineage ----------------------------------------------------------------------


def lineage_outcomes(lineage, runs_dir: Path) -> Outcomes:
    """Every evaluated checkpoint's run, its config named after the checkpoint, with the
    tasks it was trained on counted over its whole ancestry (a card lists only its own
    iteration's curriculum; the starting adapter's card lists its own training). A
    starting adapter whose training set is unknown leaves every checkpoint's unknown too:
    known to hold at least the curricula's tasks."""
    from .outcomes import combine, load_run

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
    from .bar import held_out_tasks

    opts = opts.model_copy(update={"round": 1})
    outcomes = lineage_outcomes(lineage, runs_dir)
    its = lineage.evaluated()
    configs = [it.label for it in its]
    infos = [outcomes.configs[c] for c in configs]
    frame, cohort = _cohort(outcomes.frame, opts)
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
    summaries = _summaries(counts, configs, scopes, opts)

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
    doc.warnings = _warnings(summaries, cohort)
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
    doc.notes += _unfinished_notes(_by_config(frame, configs), counts)

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
    doc.tables.append(_headline(summaries, configs, opts.confidence, cohort))
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
        "cohort": None if cohort is None else {"note": cohort.note, "ranked_by_round": opts.round,
                                               "inflation": cohort.inflation},
        "method": opts.method(),
        "checkpoints": [{"iteration": it.index, "checkpoint": it.label, "adapter": it.adapter, "parent": it.parent,
                         "eval_run": it.eval_run, "curricula": [c.model_dump() for c in it.curricula],
                         "trained_on_tasks": it.trained_on_tasks, "bar": it.bar.model_dump() if it.bar else None}
                        for it in its],
        "tasks": doc.records,
        "summaries": [_summary_data(scope, s, opts, cohort is None) for scope, s in summaries],
        "first_to_last": comparison.data if comparison is not None else None,
        "seen_in_training": sorted(trained), "training_unknown": overlap.unknown, "held_out": sorted(held),
    }
    return _name_the_view(doc, opts.accounting)


# --- plots -------------------------------------------------------------------------------


def _lines_figure(plot: Lines):
    """Each task's line is offset a little so that tasks with equal counts stay visible."""
    from matplotlib.figure import Figure

    n_tasks, n_points = plot.successes.shape
    fig = Figure(figsize=(max(5.5, 1.1 * n_points + 3.5), 4.6), dpi=100)
    ax = fig.add_subplot()
    x = np.arange(n_points)
    offsets = np.linspace(-0.12, 0.12, n_tasks) if n_tasks > 1 else np.zeros(1)
    for i, task in enumerate(plot.tasks):
        y = np.where(plot.trials[i] > 0, plot.successes[i], np.nan).astype(float)
        ax.plot(x, y + offsets[i], marker="o", markersize=3, linewidth=1.2, label=task)
    top = int(plot.trials.max()) if plot.trials.size else 1
    ax.set_ylim(-0.5, top + 0.5)
    ax.set_yticks(np.arange(top + 1))
    ax.set_xticks(x, plot.checkpoints, rotation=30 if n_points > 3 else 0, ha="right" if n_points > 3 else "center",
                  fontsize=8)
    ax.set_ylabel(plot.ylabel)
    ax.set_title(textwrap.fill(plot.title, 70), fontsize=9)
    if n_tasks <= 30:
        ax.legend(fontsize=6, loc="center left", bbox_to_anchor=(1.01, 0.5), ncol=1 if n_tasks <= 15 else 2)
    return fig


def render_png(plot: Bars | Heatmap | Lines) -> bytes:
    """One plot as PNG bytes, drawn on matplotlib's Agg canvas (no display, no pyplot)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    if isinstance(plot, Lines):
        fig = _lines_figure(plot)
    elif isinstance(plot, Bars):
        fig = Figure(figsize=(max(5.0, 1.2 * len(plot.configs) + 2), 4.2), dpi=100)
        ax = fig.add_subplot()
        x = np.arange(len(plot.configs))
        width = 0.38
        for j, (label, color) in enumerate((("round 1", "#7aa6d6"), ("two rounds", "#2b5d95"))):
            means = np.array([m[j] for m in plot.means])
            lows = np.array([iv[j][0] for iv in plot.intervals])
            highs = np.array([iv[j][1] for iv in plot.intervals])
            ax.bar(x + (j - 0.5) * width, means, width, label=label, color=color,
                   yerr=np.vstack([means - lows, highs - means]), capsize=3, ecolor="#333333")
        ax.set_xticks(x, plot.configs, rotation=30 if len(plot.configs) > 4 else 0, ha="right" if len(plot.configs) > 4 else "center")
        ax.set_ylabel("mean tasks solved")
        ax.set_ylim(0, max(plot.tasks) * 1.05 if plot.tasks else 1)
        ax.set_title(textwrap.fill(plot.title, 70), fontsize=9)
        ax.legend(fontsize=8)
    else:
        n_tasks, n_configs = plot.successes.shape
        height = min(16.0, max(3.0, 0.22 * n_tasks + 1.5))
        fig = Figure(figsize=(max(4.5, 1.3 * n_configs + 3), height), dpi=100)
        ax = fig.add_subplot()
        with np.errstate(invalid="ignore", divide="ignore"):
            share = np.where(plot.trials > 0, plot.successes / np.maximum(plot.trials, 1), np.nan)
        image = ax.imshow(share, aspect="auto", cmap="RdYlGn", vmin=0, vmax=1, interpolation="nearest")
        ax.set_xticks(np.arange(n_configs), plot.configs, rotation=30 if n_configs > 3 else 0)
        if n_tasks <= 120:
            ax.set_yticks(np.arange(n_tasks), plot.tasks, fontsize=7)
        else:
            ax.set_yticks([])
            ax.set_ylabel(f"{n_tasks} tasks")
        if n_tasks * n_configs <= 600:
            for i in range(n_tasks):
                for j in range(n_configs):
                    if plot.trials[i, j] > 0:
                        ax.text(j, i, f"{plot.successes[i, j]}/{plot.trials[i, j]}", ha="center", va="center", fontsize=7)
        fig.colorbar(image, ax=ax, fraction=0.04, label="share of trials solved")
        ax.set_title(textwrap.fill(plot.title, 60), fontsize=9)
    fig.tight_layout()
    buffer = io.BytesIO()
    FigureCanvasAgg(fig).print_png(buffer)
    return buffer.getvalue()


# --- rendering ---------------------------------------------------------------------------


def render_terminal(doc: Document, console) -> None:
    """Rich tables. Off a terminal (a pipe, a file) tables keep their natural width rather
    than wrapping numbers at 80 columns."""
    from rich.console import Console
    from rich.markup import escape
    from rich.measure import Measurement
    from rich.table import Table as RichTable
    from rich.text import Text

    tables = []
    for table in doc.tables:
        rich_table = RichTable(title=Text(table.title, style="bold"),
                               caption=Text(table.caption) if table.caption else None, header_style="bold")
        for i, col in enumerate(table.columns):
            rich_table.add_column(Text(col), justify="left" if i == 0 else "right")
        for row in table.rows:
            rich_table.add_row(*(Text(cell) for cell in row))
        tables.append(rich_table)
    if not console.is_terminal and tables:
        widest = max(Measurement.get(console, console.options.update_width(10_000), t).maximum for t in tables)
        if widest > console.width:
            console = Console(file=console.file, width=widest, no_color=console.no_color,
                              color_system=None, highlight=False)
    console.rule(f"[bold]{escape(doc.title)}")
    for line in doc.lead:
        style = "bold green" if line.startswith("PASS") else "bold red" if line.startswith("FAIL") else "bold"
        console.print(line, style=style, markup=False, highlight=False, soft_wrap=True)
    for warning in doc.warnings:
        console.print(f"! {warning}", style="bold yellow", markup=False, highlight=False, soft_wrap=True)
    for note in doc.notes:
        console.print(f"- {note}", markup=False, highlight=False, soft_wrap=True,
                      style="yellow" if note.startswith("Not like") else None)
    for rich_table in tables:
        console.print(rich_table)


def _md_cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def render_markdown(doc: Document, images: dict[str, str]) -> str:
    """images: plot name -> the relative path its PNG was written to."""
    out = [f"# {doc.title}", ""]
    for line in doc.lead:
        out += [f"**{line}**", ""]
    for warning in doc.warnings:
        out += [f"> **{warning}**", ""]
    if doc.notes:
        out += [f"- {n}" for n in doc.notes] + [""]
    for table in doc.tables:
        out += [f"## {table.title}", ""]
        if table.caption:
            out += [f"*{table.caption}*", ""]
        out.append("| " + " | ".join(_md_cell(c) for c in table.columns) + " |")
        out.append("|" + "|".join(["---"] + ["---:"] * (len(table.columns) - 1)) + "|")
        out += ["| " + " | ".join(_md_cell(c) for c in row) + " |" for row in table.rows]
        out.append("")
    for plot in doc.plots:
        if plot.name in images:
            out += [f"## {plot.title}", "", f"![{plot.title}]({images[plot.name]})", ""]
    return "\n".join(out)


_CSS = """body{font-family:system-ui,sans-serif;margin:2em;max-width:80em;color:#222}
table{border-collapse:collapse;margin:.5em 0 1.5em}th,td{border:1px solid #ccc;padding:.25em .6em;text-align:right}
th:first-child,td:first-child{text-align:left}th{background:#f0f3f7}caption{caption-side:bottom;font-style:italic;padding:.3em}
.lead{font-weight:bold;font-size:1.1em}p.warn{font-weight:bold;color:#8a5300}.PASS{color:#17692b}.FAIL{color:#a31515}li.warn{color:#8a5300}img{max-width:100%}"""


def _linked(cell: str, links: dict[str, str]) -> str:
    if cell not in links:
        return html.escape(cell)
    return f"<a href='{html.escape(links[cell])}'>{html.escape(cell)}</a>"


def render_html(doc: Document, pngs: dict[str, bytes]) -> str:
    """One self-contained page: the tables, and the plots embedded as base64 PNG."""
    e = html.escape
    out = ["<!doctype html>", "<html><head><meta charset='utf-8'>", f"<title>{e(doc.title)}</title>",
           f"<style>{_CSS}</style></head><body>", f"<h1>{e(doc.title)}</h1>"]
    if doc.pages:
        out.append(f"<p><a href='{e(doc.pages)}'>Every trial behind these numbers</a></p>")
    for line in doc.lead:
        cls = "lead " + line.split(":")[0] if line.startswith(("PASS", "FAIL")) else "lead"
        out.append(f"<p class='{cls}'>{e(line)}</p>")
    for warning in doc.warnings:
        out.append(f"<p class='warn'>{e(warning)}</p>")
    if doc.notes:
        out.append("<ul>" + "".join(
            f"<li{' class=warn' if n.startswith('Not like') else ''}>{e(n)}</li>" for n in doc.notes) + "</ul>")
    for table in doc.tables:
        out.append(f"<h2>{e(table.title)}</h2><table>")
        if table.caption:
            out.append(f"<caption>{e(table.caption)}</caption>")
        out.append("<tr>" + "".join(f"<th>{e(c)}</th>" for c in table.columns) + "</tr>")
        out += ["<tr>" + "".join(f"<td>{_linked(c, doc.links) if i == 0 else e(c)}</td>" for i, c in enumerate(row))
                + "</tr>" for row in table.rows]
        out.append("</table>")
    for plot in doc.plots:
        if plot.name in pngs:
            data = base64.b64encode(pngs[plot.name]).decode()
            out.append(f"<h2>{e(plot.title)}</h2><img alt='{e(plot.title)}' src='data:image/png;base64,{data}'>")
    out.append("</body></html>")
    return "\n".join(out)


def _json_default(value):
    if isinstance(value, (np.integer,)):
        return int(value)
    if isinstance(value, (np.floating,)):
        return float(value)
    if isinstance(value, Path):
        return str(value)
    raise TypeError(f"not JSON-able: {type(value).__name__}")


def _nan_to_none(value):
    if isinstance(value, float) and value != value:
        return None
    if isinstance(value, dict):
        return {str(k): _nan_to_none(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_nan_to_none(v) for v in value]
    return value


def render_json(doc: Document) -> str:
    body = {
        "kind": doc.kind, "title": doc.title, "lead": doc.lead, "warnings": doc.warnings, "notes": doc.notes,
        "verdict": doc.verdict,
        "data": doc.data, "tables": [asdict(t) for t in doc.tables],
    }
    return json.dumps(_nan_to_none(body), indent=2, default=_json_default) + "\n"


def render_csv(doc: Document) -> str:
    return pd.DataFrame(doc.records).to_csv(index=False)


# --- writing -----------------------------------------------------------------------------


def reports_dir() -> Path:
    """The checkout's reports/ folder in a source checkout; ./reports otherwise."""
    bundled = bundled_dir("reports")
    if "_assets" not in bundled.parts and bundled.is_dir():
        return bundled
    return Path.cwd() / "reports"


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "-", text).strip("-")[:80] or "report"


def output_path(doc: Document, fmt: str, out: Path | None) -> Path:
    if out is not None:
        return out
    if doc.kind == "lineage":
        stem = f"lineage-{_slug(doc.data['loop_id'])}"
    elif doc.kind == "plan":
        stem = f"plan-{_slug(doc.data['baseline'])}"
    else:
        stem = "report" if doc.kind == "report" else f"compare-{_slug(doc.data['base'])}-vs-{_slug(doc.data['new'])}"
    stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
    folder = reports_dir()
    path = folder / f"{stem}-{stamp}.{fmt}"
    n = 2
    while path.exists():
        path = folder / f"{stem}-{stamp}-{n}.{fmt}"
        n += 1
    return path


def resolve_format(fmt: str | None, out: Path | None) -> str:
    """--format, or the one --out's suffix names, or the terminal."""
    if fmt is not None:
        if fmt not in ("terminal", *FILE_FORMATS):
            raise BadInput(f"--format {fmt}: expected one of terminal, {', '.join(FILE_FORMATS)}")
        if fmt == "terminal" and out is not None:
            raise BadInput("--out needs a file format (--format md, html, json or csv)")
        return fmt
    if out is None:
        return "terminal"
    suffix = out.suffix.lower().lstrip(".")
    suffix = {"markdown": "md", "htm": "html"}.get(suffix, suffix)
    if suffix not in FILE_FORMATS:
        raise BadInput(f"--out {out}: cannot tell the format from the suffix; add --format md|html|json|csv")
    return suffix


def write(doc: Document, fmt: str, out: Path | None, console, outcomes: Outcomes | None = None) -> Path | None:
    """Render the document; print it (terminal) or write it to a file and return its path.
    Markdown gets its plots as PNG files next to it; HTML embeds them, and over runs
    (`outcomes` given) links to the viewer's pages of their trials, written beside it."""
    if fmt == "terminal":
        render_terminal(doc, console)
        return None
    path = output_path(doc, fmt, out)
    path.parent.mkdir(parents=True, exist_ok=True)
    if fmt == "md":
        images = {}
        for plot in doc.plots:
            image = path.with_name(f"{path.stem}-{plot.name}.png")
            image.write_bytes(render_png(plot))
            images[plot.name] = image.name
        text = render_markdown(doc, images)
    elif fmt == "html":
        if outcomes is not None:
            from .view.static import attach_pages

            attach_pages(doc, outcomes, path)
        text = render_html(doc, {plot.name: render_png(plot) for plot in doc.plots})
    elif fmt == "json":
        text = render_json(doc)
    else:
        text = render_csv(doc)
    path.write_text(text, encoding="utf-8")
    return path


# --- entry points (the CLI parses options into these) ----------------------------------


class ReportRequest(BaseModel):
    sources: list[tuple[Literal["auto", "outcomes", "aider"], str]] = []
    runs_dir: Path = Path("runs")
    options: ReportOptions = ReportOptions()
    format: str | None = None
    out: Path | None = None


class CompareRequest(ReportRequest):
    base: str
    new: str


def report(request: ReportRequest, console) -> tuple[Document, Path | None]:
    from .outcomes import load

    fmt = resolve_format(request.format, request.out)
    outcomes = load(request.sources, request.runs_dir)
    doc = build_report(outcomes, request.options)
    return doc, write(doc, fmt, request.out, console, outcomes)


class LineageRequest(BaseModel):
    loop: str                      # a loop id under runs_dir, or its folder
    runs_dir: Path = Path("runs")
    options: ReportOptions = ReportOptions()
    format: str | None = None
    out: Path | None = None


def lineage_report(request: LineageRequest, console) -> tuple[Document, Path | None]:
    from .loop.lineage import lineage_path, read_lineage, runs_dir_of

    fmt = resolve_format(request.format, request.out)
    path = lineage_path(request.loop, request.runs_dir)
    doc = build_lineage(read_lineage(str(path)), runs_dir_of(path), request.options)
    return doc, write(doc, fmt, request.out, console)


def compare(request: CompareRequest, console) -> tuple[Document, Path | None]:
    from .outcomes import load_pair

    fmt = resolve_format(request.format, request.out)
    outcomes, base, new = load_pair(request.base, request.new, request.sources, request.runs_dir)
    doc = build_comparison(outcomes, base, new, request.options)
    return doc, write(doc, fmt, request.out, console, outcomes)


class PlanRequest(BaseModel):
    baseline: str
    effect: float
    round: Literal[1, 2] = 2
    alpha: float = Field(stats.ALPHA, gt=0, lt=1)
    power: float = Field(stats.POWER, gt=0, lt=1)
    simulations: int = Field(1000, ge=100)
    seed: int = stats.SEED
    max_trials: int = Field(256, ge=1)
    runs_dir: Path = Path("runs")
    format: str | None = None
    out: Path | None = None


def build_plan(outcomes: Outcomes, config: str, request: PlanRequest) -> Document:
    """How many trials per task detect a change of `effect` tasks with the asked power."""
    counts = stats.round_counts(_config_counts(stats.task_counts(outcomes.frame), config), request.round)
    if counts.empty:
        raise BadInput(f"{config} has no counted outcome in round {request.round} to plan from")
    if request.effect == 0:
        raise BadInput("--effect 0: a change of zero tasks cannot be detected; give the change to detect")
    rates = (counts["c"] / counts["n"]).to_numpy()
    needed, points = stats.plan_trials(rates, request.effect, request.alpha, request.power, request.simulations,
                                       request.seed, request.max_trials)
    what = "in round 1" if request.round == 1 else "within two rounds"
    change = f"{'a gain' if request.effect > 0 else 'a loss'} of {abs(request.effect):g} tasks {what}"
    doc = Document("plan", f"Trials needed to detect {change}")
    if needed is None:
        doc.lead.append(f"Even {request.max_trials} trials per task do not detect {change} over these "
                        f"{len(rates)} tasks with {request.power:.0%} power.")
    else:
        doc.lead.append(f"{needed} trials per task (both configurations) detect {change} over these {len(rates)} "
                        f"tasks with {request.power:.0%} power at alpha {request.alpha:g}.")
    doc.warnings = [w for w in [stats.small_suite_warning(len(rates))] if w]
    doc.notes.append(
        f"By simulation from {config}'s per-task success rates {what} ({request.simulations:,} simulated comparisons "
        f"per trial count, seed {request.seed}): both configurations run again with T trials per task, NEW's rates "
        "moved by the effect (a gain shared in proportion to each task's failure rate, a loss to its success rate); "
        "detected when the suite-level stratified exact test finds the change in its direction at alpha.")
    doc.tables.append(Table("Power by trials per task", ["trials per task", "power"],
                            [[str(p.trials), f"{100 * p.power:.1f}%"] for p in points]))
    doc.records = [asdict(p) for p in points]
    doc.data = {"baseline": config, "tasks": len(rates), "effect": request.effect, "round": request.round,
                "alpha": request.alpha, "power": request.power, "trials_needed": needed, "points": doc.records}
    return doc


def plan(request: PlanRequest, console) -> tuple[Document, Path | None]:
    from .outcomes import pick_one

    fmt = resolve_format(request.format, request.out)
    part = pick_one(request.baseline, None, request.runs_dir)
    doc = build_plan(part, next(iter(part.configs)), request)
    return doc, write(doc, fmt, request.out, console)
