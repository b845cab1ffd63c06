"""A loop's lineage: its config and one record per iteration, in
<runs>/loops/<id>/lineage.json, rewritten after every stage. The loop writes it; reports
and the viewer read it."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import Field, ValidationError

from .. import __version__
from ..bar import BarCheck
from ..errors import BadInput, invalid
from ..records import Record
from .config import SCHEMA_VERSION, LoopConfig

LOOPS_DIR = "loops"
LINEAGE_FILE = "lineage.json"

Stage = Literal["curriculum", "train", "eval", "bar"]


class CurriculumRef(Record):
    name: str
    path: str
    made_from: Literal["runs", "synth", "tests"]  # tests: a test-writing loop's export of its suites
    content_hash: str
    repair_tasks: int              # a test-writing export: the rows its trainer takes
    source_tasks: list[str]


class ServerRef(Record):
    """A server the loop started: stopped again after its evaluation, or by --resume
    when the loop died first. `since` tells it apart from servers started before it."""

    port: int
    since: str
    pid: int | None = None
    container_id: str | None = None


class Iteration(Record):
    index: int
    adapter: str | None = None          # the checkpoint evaluated (None: the base model)
    parent: str | None = None           # the adapter training started from
    curricula: list[CurriculumRef] = Field(default_factory=list)
    train_data: str | None = None       # the curriculum folder or JSONL trained on
    train_run: str | None = None
    checkpoints: list[str] = Field(default_factory=list)  # NAME@iterK adapters of the training run
    dataset_hash: str | None = None
    trained_on_tasks: list[str] = Field(default_factory=list)
    eval_run: str | None = None
    eval_model: str | None = None
    first_round_mean: float | None = None
    two_round_mean: float | None = None
    bar: BarCheck | None = None
    done: list[Stage] = Field(default_factory=list)
    seconds: dict[Stage, float] = Field(default_factory=dict)  # each stage's wall time (its last attempt)
    started_at: str
    finished_at: str | None = None

    def stages(self) -> list[Stage]:
        return ["eval"] if self.index == 0 else ["curriculum", "train", "eval", "bar"]

    @property
    def label(self) -> str:
        """The checkpoint's name in reports."""
        return self.adapter or "base"


class Lineage(Record):
    schema_version: Literal[1] = SCHEMA_VERSION
    loop_id: str
    config: LoopConfig
    harness_version: str = __version__
    command_line: list[str] = Field(default_factory=list)
    created_at: str
    updated_at: str
    status: Literal["running", "finished", "stopped"] = "running"
    stop_reason: str | None = None
    server: ServerRef | None = None
    iterations: list[Iteration] = Field(default_factory=list)

    def evaluated(self) -> list[Iteration]:
        return [it for it in self.iterations if "eval" in it.done]


def failures_in_a_row(iterations: list[Iteration]) -> int:
    """Bar failures at the end of the lineage, counted back to the last pass."""
    n = 0
    for bar in reversed([it.bar for it in iterations if it.bar is not None]):
        if bar.passed:
            break
        n += 1
    return n


def loop_dir(runs_dir: Path, loop_id: str) -> Path:
    return Path(runs_dir) / LOOPS_DIR / loop_id


def runs_dir_of(lineage_file: Path) -> Path:
    """The runs folder a loop's evaluations are in: <runs>/loops/<id>/lineage.json's <runs>."""
    return Path(lineage_file).parents[2]


def find_lineage(ref: str, runs_dir: Path = Path("runs")) -> Path | None:
    """A loop's lineage.json, named by its id (under runs_dir), its folder or the file itself."""
    path = Path(ref)
    for candidate in (path, path / LINEAGE_FILE, loop_dir(runs_dir, ref) / LINEAGE_FILE):
        if candidate.is_file() and candidate.name == LINEAGE_FILE:
            return candidate
    return None


def lineage_path(ref: str, runs_dir: Path = Path("runs")) -> Path:
    """find_lineage's file, or bad input naming where the loop's id was looked up."""
    found = find_lineage(ref, runs_dir)
    if found is None:
        raise BadInput(f"no loop {ref!r} (no {loop_dir(runs_dir, ref) / LINEAGE_FILE})")
    return found


def read_lineage(ref: str, runs_dir: Path = Path("runs")) -> Lineage:
    path = lineage_path(ref, runs_dir)
    try:
        return Lineage.model_validate_json(path.read_bytes())
    except ValidationError as exc:
        raise invalid(exc, str(path)) from None
