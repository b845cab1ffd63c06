"""What a viewer shows, loaded once: the outcome frame of every run it was given (the same
Outcomes a report reads, rows cached), each trial's failure kinds (facts.py), and the
loops and curricula among its sources. A trial's own files are read only when its page
is asked for (trial.py).

A source is a run (folder or id), an outcomes file, a loop (its folder, its lineage.json,
or its id), or a curriculum folder; a curriculum brings the runs it was made from when
they are still on disk, so its exercises link to their trials."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

import pandas as pd
from pydantic import ValidationError

from .. import stats
from ..curriculum.exports import read_manifest
from ..curriculum.records import REPAIR_RECORD, RepairRecord
from ..errors import BadInput
from ..loop.lineage import find_lineage, read_lineage, runs_dir_of
from ..outcomes import FRAME_COLUMNS, Outcomes, combine, load_run, load_source
from ..records import RunManifest
from ..report import Document, ReportOptions, build_report
from ..report.lineage import lineage_outcomes
from .facts import COLUMNS, view_rows

if TYPE_CHECKING:  # annotations only: the loaders below import them when a source is a loop or a curriculum
    from ..curriculum.records import CurriculumManifest, RepairRecord
    from ..loop.lineage import Lineage


@dataclass
class LoopSource:
    lineage: Lineage
    runs_dir: Path         # where its evaluation runs are
    names: dict[str, str] = field(default_factory=dict)  # checkpoint label -> the site's config name


@dataclass
class CurriculumSource:
    path: Path
    manifest: CurriculumManifest
    records: list[RepairRecord]  # one per repair task


def slugify(name: str, taken: set[str]) -> str:
    """A name as one path segment of a page's address, unique among `taken`."""
    base = re.sub(r"[^A-Za-z0-9._@+-]+", "_", name).strip("._") or "x"
    slug, n = base, 2
    while slug in taken:
        slug, n = f"{base}~{n}", n + 1
    taken.add(slug)
    return slug


@dataclass
class Site:
    outcomes: Outcomes
    options: ReportOptions = field(default_factory=ReportOptions)
    loops: list[LoopSource] = field(default_factory=list)
    curricula: list[CurriculumSource] = field(default_factory=list)
    # (base, new) or (base, new, round) -> its comparison, built once each
    comparisons: dict[tuple[str, str] | tuple[str, str, int], Document] = field(default_factory=dict)

    def __post_init__(self) -> None:
        taken: set[str] = set()
        self.configs = list(self.outcomes.configs)
        self.slug = {name: slugify(name, taken) for name in self.configs}
        self.by_slug = {s: n for n, s in self.slug.items()}
        taken = set()
        self.loop_slug = {loop.lineage.loop_id: slugify(loop.lineage.loop_id, taken) for loop in self.loops}
        taken = set()
        self.curriculum_slug = {c.manifest.name: slugify(c.manifest.name, taken) for c in self.curricula}
        # run id -> run folder, for the raw files and for links from curricula
        self.runs: dict[str, Path] = {}
        for info in self.outcomes.configs.values():
            if info.run_dir:
                self.runs.setdefault(Path(info.run_dir).name, Path(info.run_dir))

    # --- numbers ------------------------------------------------------------------------

    @cached_property
    def report(self) -> Document | None:
        """The report's own document over every source: the headline numbers on top (None
        when no source holds a tested round: a curriculum made from mutants alone, a run
        whose every trial ended in an error, whose grid still shows each)."""
        return build_report(self.outcomes, self.options) if self.tested else None

    @property
    def tested(self) -> bool:
        """Some trial of some source had a round tested: there are numbers to show."""
        return bool(self.configs) and bool((self.outcomes.frame["rounds_recorded"] > 0).any())

    @cached_property
    def counts(self) -> pd.DataFrame:
        return stats.task_counts(self.outcomes.frame)

    @cached_property
    def trials(self) -> pd.DataFrame:
        """The outcome frame, one row per task-trial, with each trial's failure kinds,
        infrastructure error kind, passing round and wall time where a run recorded them."""
        frame = self.outcomes.frame
        facts = []
        for run_dir, names in self._configs_by_run().items():
            manifest = RunManifest.model_validate_json((run_dir / "manifest.json").read_bytes())
            rows = view_rows(run_dir, manifest)
            for name, folder in names:
                facts.append(rows[rows["run_config"] == folder].assign(config=name))
        extra = [c for c in COLUMNS if c not in ("run_config", "task", "trial")]
        if facts:
            joined = frame.merge(pd.concat(facts, ignore_index=True).drop(columns="run_config"),
                                 on=["config", "task", "trial"], how="left")
        else:
            joined = frame.assign(**{c: None for c in extra})
        joined["passed_round"] = joined["passed_round"].fillna(0).astype(int)
        joined["kinds"] = joined["kinds"].fillna("")
        joined["infra"] = joined["infra"].fillna("")
        joined["error"] = joined["error"].fillna("")
        joined["seconds"] = pd.to_numeric(joined["seconds"], errors="coerce")
        joined["tampered"] = joined["tampered"].fillna(False).astype(bool)
        return joined.sort_values(["config", "task", "trial"], kind="stable").reset_index(drop=True)

    @cached_property
    def _positions(self) -> dict[tuple[str, str, int], int]:
        trials = self.trials
        return {key: i for i, key in enumerate(zip(trials["config"].tolist(), trials["task"].tolist(),
                                                   trials["trial"].tolist()))}

    def trial_row(self, config: str, task: str, trial: int) -> pd.Series | None:
        """The trial's row of `trials`, found without scanning them."""
        i = self._positions.get((config, task, trial))
        return None if i is None else self.trials.iloc[i]

    def _configs_by_run(self) -> dict[Path, list[tuple[str, str]]]:
        out: dict[Path, list[tuple[str, str]]] = {}
        for name, info in self.outcomes.configs.items():
            if info.run_dir and info.run_config:
                out.setdefault(Path(info.run_dir), []).append((name, info.run_config))
        return out

    # --- where things are ---------------------------------------------------------------

    def config(self, slug: str) -> str:
        if slug not in self.by_slug:
            raise KeyError(slug)
        return self.by_slug[slug]

    def trial_dir(self, config: str, task: str, trial: int) -> Path | None:
        """The trial's folder, when the config is a run's and the folder exists."""
        info = self.outcomes.configs.get(config)
        if info is None or not info.run_dir or not info.run_config:
            return None
        path = Path(info.run_dir) / info.run_config / task / f"trial-{trial}"
        return path if path.is_dir() else None

    def config_of_run(self, run_id: str, run_config: str) -> str | None:
        """The viewer's name of a run's config, if that run is shown."""
        for name, info in self.outcomes.configs.items():
            if info.run_dir and Path(info.run_dir).name == run_id and info.run_config == run_config:
                return name
        return None

    def loop(self, slug: str) -> LoopSource:
        for loop in self.loops:
            if self.loop_slug[loop.lineage.loop_id] == slug:
                return loop
        raise KeyError(slug)

    def curriculum(self, slug: str) -> CurriculumSource:
        for c in self.curricula:
            if self.curriculum_slug[c.manifest.name] == slug:
                return c
        raise KeyError(slug)


# --- loading -----------------------------------------------------------------------------


def _is_curriculum(path: Path) -> bool:
    return (path / "suite.toml").is_file() and (path / "manifest.json").is_file()


def _curriculum(path: Path) -> CurriculumSource:
    manifest = read_manifest(path)
    records = []
    for folder in manifest.repair_tasks:
        record = path / folder / REPAIR_RECORD
        try:
            records.append(RepairRecord.model_validate_json(record.read_bytes()))
        except (OSError, ValidationError) as exc:
            raise BadInput(f"{record}: missing or not a repair record ({type(exc).__name__})") from None
    return CurriculumSource(path, manifest, records)


def load_site(sources: list[str], runs_dir: Path = Path("runs"), options: ReportOptions = ReportOptions()) -> Site:
    """Every source, as one Site. Configurations that two sources share a name for are
    qualified by their source, as in reports; a run is shown once however many sources
    bring it (a loop's checkpoint, a curriculum's source, itself)."""
    if not sources:
        raise BadInput("nothing to view: name at least one run, loop or curriculum")
    parts: list[Outcomes] = []
    loops: list[tuple[LoopSource, int]] = []   # with the index of its part
    curricula: list[CurriculumSource] = []
    for spec in sources:
        loop_file = find_lineage(spec, runs_dir)
        path = Path(spec)
        if loop_file is not None:
            lineage = read_lineage(str(loop_file))
            loop_runs = runs_dir_of(loop_file)
            loops.append((LoopSource(lineage, loop_runs), len(parts)))
            parts.append(lineage_outcomes(lineage, loop_runs))
        elif path.is_dir() and _is_curriculum(path):
            curricula.append(_curriculum(path))
        else:
            parts.append(load_source(spec, runs_dir, need_tested=False))
    shown = {Path(i.run_dir).resolve() for part in parts for i in part.configs.values() if i.run_dir}
    for c in curricula:
        for run in c.manifest.runs:
            folder = Path(run.run_dir)
            if (folder / "manifest.json").is_file() and folder.resolve() not in shown:
                shown.add(folder.resolve())
                parts.append(load_run(folder, need_tested=False))
    if not parts:
        # Only curricula made from mutants: their pages, and no grid.
        return Site(Outcomes(pd.DataFrame(columns=list(FRAME_COLUMNS)), {}), options, [lp for lp, _ in loops], curricula)
    outcomes, renames = combine(parts)
    for loop, index in loops:
        loop.names = renames[index]
    return Site(outcomes, options, [lp for lp, _ in loops], curricula)
