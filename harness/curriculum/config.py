"""What a curriculum is built with: the settings shared by `build`, `synth` and the loop's
curriculum stage, and each command's own config. Every default is stated here; the CLI's
options and the loop's config take theirs from these models."""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from ..executor import ExecutorSettings
from ..languages import layout_named
from ..training_files import curriculum_roots
from .taxonomy import FailureKind


def default_root() -> Path:
    """Where curricula go unless --root says otherwise: `curricula/` in the current folder
    (git-ignored), the first place training and suite lookup search."""
    return curriculum_roots()[0]


class CurriculumSettings(BaseModel):
    """How candidates are validated, sampled and kept, whatever made them."""

    model_config = ConfigDict(extra="forbid")

    max_per_task: int = Field(4, ge=1, description="kept repair tasks per suite task and failure kind")
    failure_kinds: list[FailureKind] | None = None
    seed: int = 0
    controls: int = Field(2, ge=0, description="mutant faulty controls per repair task")
    # None: the repair contract of the suite's language (languages/ `Layout.repair_contract`).
    contract: str | None = None
    sandbox: str = "auto"
    workers: int | None = Field(None, ge=1)
    run_timeout_s: float = Field(10.0, gt=0, description="one run of a test binary during validation")
    executor: ExecutorSettings | None = None  # where validation runs; None: as HARNESS_EXECUTOR says


def contract_for(named: str | None, language: str) -> str:
    """The prompt contract a curriculum of a suite in `language` is written with."""
    return named if named is not None else layout_named(language, "the suite").repair_contract


class CommonOptions(CurriculumSettings):
    """One curriculum: the settings, where it goes, and what it leaves out."""

    out: str
    root: Path | None = None
    hold_out: list[str] = Field(default_factory=list)
    replace: bool = False

    def out_root(self) -> Path:
        return Path(self.root) if self.root is not None else default_root()


class BuildConfig(CommonOptions):
    runs: list[str]
    runs_dir: Path = Path("runs")
    mutants_per_task: int = Field(8, ge=0, description="mutants screened per suite task to find controls")


class SynthConfig(CommonOptions):
    suite: str
    tasks: list[str] | None = None
    mutants_per_task: int = Field(24, ge=1, description="mutants of each reference screened as starting points")
