"""A loop's configuration: `harness loop`'s options and its `--config` TOML file, checked
against the suite, profiles and cards before any work, and stored in the lineage, so
--resume needs nothing else."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Final, Literal

from pydantic import BaseModel, Field, ValidationError, model_validator

from ..adapter_card import find_card
from ..agents.registry import load_profile
from ..contract import TESTS_CONTRACT, load_contract
from ..curriculum.config import BuildConfig, SynthConfig
from ..curriculum.config import CurriculumSettings as CurriculumBuildSettings, contract_for
from ..errors import BadInput, invalid
from ..fs import read_toml
from ..hold_out import HoldOut
from ..records import Record, Sampling, TestWritingSettings
from ..run.config import RunConfig
from ..serve.launch import ServeSettings
from ..suite import find_suite
from ..train.config import TrainConfig
from ..train.model import base_ref

SCHEMA_VERSION: Final = 1  # of lineage.json, which holds the config


def _same_field(model: type[BaseModel], name: str) -> Any:
    """`model`'s field `name` (its default and description) to declare again. Typed Any as
    pydantic's Field() is, so that it stands as the default of the field's own type."""
    return model.model_fields[name]


class EvalSettings(Record):
    """How every checkpoint is evaluated: `harness run`'s options, with its defaults (but the
    contract, which a loop pins so that every iteration is asked the same way)."""

    rounds: int = _same_field(RunConfig, "rounds")
    workers: int | None = _same_field(RunConfig, "workers")
    agent: str = _same_field(RunConfig, "agent")
    contract: str | None = Field(None, description="default: original for repair loops, the tests contract for "
                                                   "test-writing loops")
    sampling: Sampling = _same_field(RunConfig, "sampling")
    sandbox: str = _same_field(RunConfig, "sandbox")


class CurriculumSettings(CurriculumBuildSettings):
    """`harness curriculum build`'s settings, and synth's for the first iteration."""

    synth_first: bool = Field(False, description="add repair tasks made from mutants of the references in iteration 1")
    mutants_per_task: int = _same_field(BuildConfig, "mutants_per_task")
    synth_mutants_per_task: int = _same_field(SynthConfig, "mutants_per_task")


class TestsExportSettings(Record):
    """A test-writing loop's training data: `harness tests export`'s settings over the last
    evaluation's suites (testwriting/export.py)."""

    __test__ = False
    min_kill: float = Field(0.8, ge=0, le=1, description="SFT: valid suites with at least this kill rate")
    margin: float = Field(0.2, gt=0, le=1, description="preference pairs: the chosen kills at least this much more")
    pairs_per_task: int = Field(8, ge=1)


class LoopConfig(Record):
    """Everything a loop does; stored in its lineage, so --resume needs nothing else. A
    TOML file (`--config`) holds any of these keys and the tables eval, curriculum, serve
    and train (train takes the tables of `harness train --config`: lora, sft, dpo, grpo, runtime).

    `kind = "tests"` makes it a test-writing loop: each evaluation is a `--kind tests` run
    (scored as `tests` says), each iteration's data is the export of the last evaluation's
    suites (`export`), and `trainer` says which of them trains the next adapter: `grpo` on
    the tests environment (one prompt per task, rewarded validity x kill rate), `sft` on the
    valid suites, `dpo` on the preference pairs. A repair loop trains GRPO on its
    curriculum of failures."""

    schema_version: Literal[1] = SCHEMA_VERSION
    kind: Literal["repair", "tests"] = "repair"
    trainer: Literal["grpo", "sft", "dpo"] = "grpo"
    tests: TestWritingSettings = Field(default_factory=TestWritingSettings)
    export: TestsExportSettings = Field(default_factory=TestsExportSettings)
    suite: str
    base: str
    init_adapter: str | None = None
    iterations: int = Field(ge=1)
    trials: int = Field(ge=1)
    tasks: list[str] | None = None
    hold_out: list[str] = Field(default_factory=list, description="suite tasks kept out of every curriculum")
    bar: float | None = Field(None, description="minimum gain in tasks over the previous iteration, pre-registered")
    bar_round: Literal[1, 2] = 1
    stop_after_failures: int = Field(2, ge=1, description="stop when the bar fails this many iterations in a row")
    eval: EvalSettings = Field(default_factory=EvalSettings)
    curriculum: CurriculumSettings = Field(default_factory=CurriculumSettings)
    serve: ServeSettings = Field(default_factory=ServeSettings)
    train: TrainConfig = Field(default_factory=TrainConfig)

    @model_validator(mode="after")
    def _trainer_fits_kind(self) -> "LoopConfig":
        if self.kind == "repair" and self.trainer != "grpo":
            raise ValueError(f"trainer {self.trainer}: a repair loop trains GRPO on its curriculum of failures "
                             "(sft and dpo train on a test-writing loop's suites, kind = \"tests\")")
        return self


def load_loop_config(path: Path | None, given: dict[str, Any]) -> LoopConfig:
    """The TOML file's settings, then the options given on the command line (top-level
    keys, and a `serve` dict merged into the file's serve table)."""
    data: dict[str, Any] = {}
    if path is not None:
        data = read_toml(path)
    for key, value in given.items():
        if isinstance(value, dict):
            data[key] = {**data.get(key, {}), **value}
        else:
            data[key] = value
    try:
        return LoopConfig.model_validate(data)
    except ValidationError as exc:
        raise invalid(exc, str(path) if path else "loop") from None


def _resolved(ref: str) -> str:
    """A file that exists here, as an absolute path (a resumed loop may run from another
    folder); anything else (a name, a hub id) as given. Folders are not taken: a contract
    named `tests` is not the ./tests folder."""
    path = Path(ref).expanduser()
    return str(path.resolve()) if path.is_file() else ref


def prepare(config: LoopConfig) -> LoopConfig:
    """Check everything that can be checked before any work, and pin local paths."""
    suite = find_suite(config.suite)
    tasks = suite.select(config.tasks)
    ids = {f"{suite.name}/{t.slug}" for t in tasks}
    held = HoldOut(config.hold_out)
    for name in held.names:
        if not any(tid in HoldOut([name]) for tid in ids):
            raise BadInput(f"--hold-out {name}: suite {suite.name} has no such task among those evaluated")
    if all(tid in held for tid in ids):
        raise BadInput("every evaluated task is held out: no curriculum could be built")
    load_profile(config.eval.agent)
    eval_contract = config.eval.contract or (TESTS_CONTRACT if config.kind == "tests" else "original")
    load_contract(eval_contract)
    contract = contract_for(config.curriculum.contract, suite.language)
    load_contract(contract)
    base = base_ref(config.base)
    if config.init_adapter:
        card, _ = find_card(config.init_adapter)
        if base_ref(card.base_model) != base:
            raise BadInput(f"--init-adapter {config.init_adapter} was trained on {card.base_model!r}, not {base!r}")
    if config.serve.backend == "local" and config.serve.runtime == "container":
        raise BadInput("serve: the local backend runs as a process; runtime container is for vLLM")
    suite_ref = str(suite.path) if suite.origin == "path" else suite.name
    return config.model_copy(update={
        "suite": suite_ref, "base": base,
        "eval": config.eval.model_copy(update={"agent": _resolved(config.eval.agent),
                                               "contract": _resolved(eval_contract)}),
        "curriculum": config.curriculum.model_copy(update={"contract": _resolved(contract)}),
    })
