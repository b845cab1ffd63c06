"""Scope notes: what makes a comparison not like for like (a setting in which the
configurations, or one configuration's own trials, differ; task content that differs), and
which tasks each adapter was trained on. Computed from what the sources recorded, never
typed."""

from __future__ import annotations

import datetime
from dataclasses import dataclass, field

import pandas as pd

from ..outcomes import ConfigInfo


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
    ("feedback", "feedback", "feedback_hash"),
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
            values[key] = f"{name}{_short(digest)}" if _known(name) else f"hash {str(key)[:12]}"
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


@dataclass
class Pool:
    """Which tasks are unseen by the compared configurations: those their suites declare
    unseen (a held-out pool, suite.toml `unseen`), and those written after every config's
    training cutoff (suite.toml `[written]` against the cutoffs the configs declare). A
    declared task is backed by dates only when it was written after every cutoff."""

    notes: list[str]
    unseen: set[str]                                  # declared unseen
    after: set[str] = field(default_factory=set)      # written after every compared config's cutoff
    before: set[str] = field(default_factory=set)     # written on or before some compared config's cutoff

    @property
    def backed(self) -> set[str]:
        """The declared unseen tasks that dates back."""
        return self.unseen & self.after

    def splits(self, tasks: set[str]) -> bool:
        """Whether the tasks fall on both sides, so numbers are shown for each."""
        return bool(self.unseen & tasks) and bool(tasks - self.unseen)

    def splits_by_date(self, tasks: set[str]) -> bool:
        """Whether some tasks, not all, were written after every cutoff."""
        return bool(self.after & tasks) and bool(tasks - self.after)


def _listed(tasks: set[str]) -> str:
    return ", ".join(sorted(tasks))


def _dates(infos: list[ConfigInfo], tasks: set[str]) -> tuple[dict[str, datetime.date], list[str]]:
    """The day each task was written, where the compared configs' runs agree on it (a task
    they date differently is undated), and a note for each disagreement."""
    found: dict[str, set[datetime.date]] = {}
    for info in infos:
        for task, day in info.written.items():
            if task in tasks:
                found.setdefault(task, set()).add(day)
    differ = sorted(t for t, days in found.items() if len(days) > 1)
    notes = [f"The compared runs date {_listed(set(differ))} differently, so they count as undated."] if differ else []
    return {t: next(iter(days)) for t, days in found.items() if len(days) == 1}, notes


def _by_cutoff(infos: list[ConfigInfo], tasks: set[str]) -> tuple[set[str], set[str], list[str]]:
    """(written after every config's cutoff, written on or before some config's, notes). A
    task without a date is never after; no task is after while some config declares no cutoff."""
    dates, notes = _dates(infos, tasks)
    cutoffs = {i.name: i.training_cutoff for i in infos}
    if not dates and not any(cutoffs.values()):
        return set(), set(), notes
    missing = [name for name, day in cutoffs.items() if day is None]
    undated = tasks - set(dates)
    if not dates:
        return set(), set(), notes + ["No task is dated (suite.toml [written]), so none is called written after a "
                                      "training cutoff."]
    if missing:
        return set(), set(), notes + [
            f"No training cutoff is declared for {', '.join(missing)}, so no task is called written after it "
            "(a models file's model_info.training_cutoff, an adapter card's training_cutoff)."]
    latest = max(day for day in cutoffs.values() if day is not None)
    after = {t for t, day in dates.items() if all(day > cut for cut in cutoffs.values() if cut is not None)}
    before = set(dates) - after
    stated = "; ".join(f"{name}: {day}" for name, day in cutoffs.items())
    if after == tasks:
        line = f"All {len(tasks)} tasks were written after every compared config's training cutoff ({stated})."
    else:
        line = (f"Training cutoffs ({stated}): of the {len(tasks)} tasks, {len(after)} written after every one "
                f"(after {latest}), {len(before)} on or before one"
                + (f", {len(undated)} undated, counted as neither ({_listed(undated)})" if undated else "")
                + ("; every headline number is also shown on the tasks written after and before." if after else "."))
    return after, before, notes + [line]


def held_out_pool(infos: list[ConfigInfo], tasks: set[str]) -> Pool:
    """The tasks among `tasks` that a compared config's suite declares unseen (by slug: a
    report's tasks are slugs), those written after every compared config's training
    cutoff, and notes saying so, and whether dates back the declared ones."""
    after, before, notes = _by_cutoff(infos, tasks) if infos else (set(), set(), [])
    unseen = set().union(*(set(i.unseen_tasks) for i in infos)) & tasks if infos else set()
    if not unseen:
        return Pool(notes, set(), after, before)
    if unseen == tasks:
        note = f"All {len(tasks)} tasks are declared unseen (a held-out pool: suite.toml `unseen`)."
    else:
        note = (f"Held-out pool: {len(unseen)} of the {len(tasks)} tasks are declared unseen by their suite "
                f"({_listed(unseen)}); every headline number is also shown on the seen and the unseen "
                "tasks apart.")
    backed = unseen & after
    if backed == unseen:
        note += " Backed by dates: each was written after every compared config's training cutoff."
    else:
        note += (" Declared only, not backed by dates" + (f" for {len(unseen - backed)} of them" if backed else "")
                 + ": a task is called unseen by dates only when it was written after every compared config's "
                 "training cutoff (see the cutoff note).")
    if contradicted := unseen & before:
        note += (f" Declared unseen but written on or before a compared config's training cutoff: "
                 f"{_listed(contradicted)}.")
    return Pool([*notes, note], unseen, after, before)
