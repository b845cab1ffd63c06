"""A loop's configuration: `harness loop`'s options and its `--config` TOML file, checked
against the suite, profiles and cards before any work, and stored in the lineage, so
--resume needs nothing else."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any, Literal

from pydantic import Field, ValidationError

from ..curriculum.taxonomy import FailureKind
from ..errors import BadInput
from ..records import Record, Sampling
from ..train.config import TrainConfig

SCHEMA_VERSION = 1  # of lineage.json, which holds the config


class EvalSettings(Record):
    """How every checkpoint is evaluated: `harness run`'s options."""

    rounds: int = Field(2, ge=1, le=10)
    workers: int | None = Field(None, ge=1)
    agent: str = "aider-whole"
    contract: str = "original"
    sampling: Sampling = Field(default_factory=Sampling)
    sandbox: str = "auto"


class CurriculumSettings(Record):
    """`harness curriculum build`'s options (and synth's, for the first iteration)."""

    synth_first: bool = Field(False, description="add repair tasks made from mutants of the references in iteration 1")
    max_per_task: int = Field(4, ge=1)
    failure_kinds: list[FailureKind] | None = None
    seed: int = 0
    controls: int = Field(2, ge=0)
    mutants_per_task: int = Field(8, ge=0, description="build: mutants screened per task to find the controls")
    synth_mutants_per_task: int = Field(24, ge=1, description="synth: mutants screened per task as starting points")
    contract: str = "repair"
    sandbox: str = "auto"
    workers: int | None = Field(None, ge=1)
    run_timeout_s: float = Field(10.0, gt=0)


class ServeSettings(Record):
    """`harness serve`'s options for the server each evaluation starts and stops."""

    backend: Literal["vllm", "local"] = "vllm"
    runtime: Literal["auto", "process", "container"] = "auto"
    device: str = "auto"
    host: str = "127.0.0.1"
    port: int = 8000
    gpus: int = Field(1, ge=1)
    served_name: str | None = None
    max_lora_rank: int | None = None
    vllm_bin: str | None = None
    image: str = "vllm/vllm-openai:latest"
    health_timeout_s: float = Field(900.0, gt=0)


class LoopConfig(Record):
    """Everything a loop does; stored in its lineage, so --resume needs nothing else. A
    TOML file (`--config`) holds any of these keys and the tables eval, curriculum, serve
    and train (train takes the tables of `harness train --config`: lora, grpo, runtime)."""

    schema_version: Literal[1] = SCHEMA_VERSION
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


def first_error(exc: ValidationError, source: str) -> str:
    """The first thing wrong with a config or lineage file, in one line."""
    first = exc.errors()[0]
    where = ".".join(str(p) for p in first["loc"]) or "config"
    what = ("missing (give it as an option or in the config file)" if first["type"] == "missing"
            else "unknown setting" if first["type"] == "extra_forbidden" else first["msg"].lower())
    return f"{source}: {where}: {what}"


def load_loop_config(path: Path | None, given: dict[str, Any]) -> LoopConfig:
    """The TOML file's settings, then the options given on the command line (top-level
    keys, and a `serve` dict merged into the file's serve table)."""
    data: dict[str, Any] = {}
    if path is not None:
        try:
            data = tomllib.loads(Path(path).read_text())
        except OSError as exc:
            raise BadInput(f"{path}: {exc.strerror}") from None
        except tomllib.TOMLDecodeError as exc:
            raise BadInput(f"{path}: not valid TOML ({exc})") from None
    for key, value in given.items():
        if isinstance(value, dict):
            data[key] = {**data.get(key, {}), **value}
        else:
            data[key] = value
    try:
        return LoopConfig.model_validate(data)
    except ValidationError as exc:
        raise BadInput(first_error(exc, str(path) if path else "loop")) from None


def _resolved(ref: str) -> str:
    """A file or folder that exists here, as an absolute path (a resumed loop may run from
    another folder); anything else (a name, a hub id) as given."""
    path = Path(ref).expanduser()
    return str(path.resolve()) if path.exists() else ref


def prepare(config: LoopConfig) -> LoopConfig:
    """Check everything that can be checked before any work, and pin local paths."""
    from ..adapter_card import find_card
    from ..agents.aider import load_profile
    from ..contract import load_contract
    from ..curriculum.candidates import HoldOut
    from ..suite import find_suite
    from ..train.model import base_ref

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
    load_contract(config.eval.contract)
    load_contract(config.curriculum.contract)
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
                                               "contract": _resolved(config.eval.contract)}),
        "curriculum": config.curriculum.model_copy(update={"contract": _resolved(config.curriculum.contract)}),
    })
