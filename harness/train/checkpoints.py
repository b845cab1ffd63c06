"""A training run's folder, and the adapters it publishes.

    <runs>/train/<NAME>/run.json          TrainRunManifest: what was trained on what, with which config
    <runs>/train/<NAME>/log.jsonl         one record per logged step (steplog.py)
    <runs>/train/<NAME>/trainer/          the trainer's own checkpoints (optimizer state), for --resume
    <runs>/train/<NAME>/adapters/<ADAPTER>/  every published adapter: NAME@iterK and the final NAME

Every published adapter gets a card (adapter_card.py) in the user's cards, so
`harness serve --adapter NAME@iterK` and `harness run --model local/NAME@iterK` find it."""

from __future__ import annotations

import datetime as dt
import re
from pathlib import Path
from typing import Literal

from pydantic import field_validator

from .. import __version__
from ..adapter_card import TrainingManifest, check_name, write_card
from ..errors import BadInput
from ..fs import subfolders, write_record, written_folder
from ..records import Record
from .config import TrainConfig

RUN_FILE, LOG_FILE = "run.json", "log.jsonl"
_CHECKPOINT = re.compile(r"^checkpoint-(\d+)$")


class TrainRunManifest(Record):
    schema_version: Literal[1] = 1
    kind: Literal["sft", "dpo", "grpo"]
    name: str
    base_model: str
    init_adapter: str | None = None
    data: list[str]               # the JSONL files trained on
    curriculum: str | None = None
    dataset_hash: str
    trained_on_tasks: list[str]
    config: TrainConfig
    harness_version: str = __version__
    started: str = ""

    @field_validator("data", mode="before")
    @classmethod
    def _one_file(cls, value: object) -> object:
        # run.json of runs started before a run could mix data sets names one file.
        return [value] if isinstance(value, str) else value


def iteration_name(name: str, iteration: int) -> str:
    return f"{name}@iter{iteration}"


class TrainRun:
    def __init__(self, root: Path, manifest: TrainRunManifest):
        self.root = root
        self.manifest = manifest

    @property
    def log_path(self) -> Path:
        return self.root / LOG_FILE

    @property
    def trainer_dir(self) -> Path:
        return self.root / "trainer"

    @property
    def adapters_dir(self) -> Path:
        return self.root / "adapters"

    @property
    def source(self) -> str:
        return str(self.root)

    @classmethod
    def new(cls, runs_dir: Path, manifest: TrainRunManifest) -> "TrainRun":
        """A run that does not exist yet; nothing is written until `write`."""
        root = (Path(runs_dir) / "train" / check_name(manifest.name)).resolve()
        if (root / RUN_FILE).exists():
            raise BadInput(f"{root}: a training run named {manifest.name} exists; pass --resume to continue it "
                           "or choose another --out")
        started = dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds")
        return cls(root, manifest.model_copy(update={"started": started}))

    def write(self) -> None:
        write_record(self.root / RUN_FILE, self.manifest)

    @classmethod
    def open(cls, runs_dir: Path, name: str) -> "TrainRun":
        root = (Path(runs_dir) / "train" / check_name(name)).resolve()
        path = root / RUN_FILE
        if not path.is_file():
            raise BadInput(f"{root}: no training run named {name} to resume")
        return cls(root, TrainRunManifest.model_validate_json(path.read_text()))

    def last_checkpoint(self) -> tuple[Path, int] | None:
        """The trainer checkpoint with the most updates, or None before the first one."""
        found = []
        if self.trainer_dir.is_dir():
            for p in self.trainer_dir.iterdir():
                m = _CHECKPOINT.match(p.name)
                if m and (p / "trainer_state.json").is_file():
                    found.append((int(m.group(1)), p))
        if not found:
            return None
        step, path = max(found)
        return path, step

    def published(self) -> list[str]:
        """The run's adapters: NAME@iterK by iteration, then the final NAME."""
        names = [p.name for p in subfolders(self.adapters_dir) if not p.name.startswith(".")] \
            if self.adapters_dir.is_dir() else []
        iters = sorted((n for n in names if n.startswith(self.manifest.name + "@iter")), key=lambda n: int(n.rsplit("iter", 1)[1]))
        return iters + [n for n in names if n == self.manifest.name]

    def training_manifest(self, iteration: int | None) -> TrainingManifest:
        m = self.manifest
        # The settings this kind of run used (TOML has no null: unset ones are left out).
        config = {"kind": m.kind, **m.config.model_dump(mode="json", exclude_none=True, include={"lora", m.kind, "runtime"})}
        return TrainingManifest(parent=m.init_adapter, iteration=iteration, dataset_hash=m.dataset_hash,
                                trained_on_tasks=m.trained_on_tasks, config=config, source_run=self.source)

    def publish(self, model, adapter_name: str, iteration: int | None) -> Path:
        """Save the trained ("default") adapter of a peft model as `adapter_name` and write
        its card; returns the card file. Saved to a temporary folder first, so a crash never
        leaves a card over half-written weights."""
        target = self.adapters_dir / check_name(adapter_name)
        with written_folder(target) as staging:
            model.save_pretrained(str(staging), selected_adapters=["default"])
        return write_card(target, name=adapter_name, base_model=self.manifest.base_model,
                          training=self.training_manifest(iteration))
