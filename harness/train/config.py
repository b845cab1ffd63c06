"""One config model for every training command. The defaults are the study's recorded run
(LoRA rank 16, alpha 32; learning rate 3e-5 with 10% warm-up; KL coefficient 0.1; 8 prompts
x 32 samples per update, a global batch of 256; 20 GRPO updates; bf16 where the device
supports it). Whatever the study did not record takes TRL's or transformers' default, so
nothing here is an unexplained choice. A TOML file (`--config`) and flags override it; the
resolved config is printed at the start of a run and stored with it."""

from __future__ import annotations

import os
import tomllib
from pathlib import Path
from typing import Any, Final, Literal

from pydantic import Field, ValidationError, model_validator

from ..errors import BadInput, invalid
from ..executor import ExecutorSettings
from ..kinds.base import KindName
from ..records import Record
from ..fs import read_toml

SCHEMA_VERSION: Final = 1


class LoraSettings(Record):
    rank: int = Field(16, gt=0)
    alpha: int | float = Field(32, gt=0)
    dropout: float = Field(0.0, ge=0, lt=1)
    # Every projection of a Llama/Qwen/Mistral-style block, named as vLLM names them;
    # "all-linear" (peft's shorthand for every linear layer but the head) suits other families.
    target_modules: list[str] | Literal["all-linear"] = ["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"]


class SftSettings(Record):
    """The whole-file warm start. The study recorded no SFT hyper-parameters beyond the
    LoRA shape, so these are transformers' and TRL's defaults except where noted."""

    learning_rate: float = Field(1e-4, gt=0)  # LoRA SFT needs more than the GRPO rate to move in one epoch
    warmup_ratio: float = Field(0.1, ge=0, lt=1)
    lr_scheduler: str = "constant_with_warmup"
    epochs: float = Field(1.0, gt=0)
    batch_size: int = Field(8, gt=0, description="sequences per optimizer step, over all devices")
    micro_batch_size: int = Field(1, gt=0, description="sequences per device per forward pass")
    max_length: int = Field(8192, gt=0, description="tokens per sequence; longer ones are cut from the end")
    eval_rows: int = Field(64, ge=0, description="rows of the training data scored before and after training")


class DpoSettings(Record):
    """Preference training on chosen and rejected answers (TRL's DPOTrainer, sigmoid loss).
    The study recorded no DPO hyper-parameters beyond the LoRA shape; the batch, epochs and
    length follow the SFT stage's, beta is TRL's default."""

    learning_rate: float = Field(5e-6, gt=0)  # TRL's 1e-6 is for full fine-tuning; a LoRA adapter needs more to move
    warmup_ratio: float = Field(0.1, ge=0, lt=1)
    lr_scheduler: str = "constant_with_warmup"
    epochs: float = Field(1.0, gt=0)
    batch_size: int = Field(8, gt=0, description="preference pairs per optimizer step, over all devices")
    micro_batch_size: int = Field(1, gt=0, description="pairs per device per forward pass")
    max_length: int = Field(8192, gt=0, description="tokens of prompt and answer; longer ones are cut from the end")
    beta: float = Field(0.1, gt=0, description="how far the policy may move from the reference (the starting adapter, "
                                               "or the base)")
    loss_type: str = "sigmoid"
    eval_rows: int = Field(64, ge=0, description="pairs of the training data scored before and after training")


# The GRPO environments: each kind's (train/environments.py), and `rlef`, repair in two turns
# (train/multiturn.py: an answer, its public tests' results, one repair).
EnvironmentName = Literal[KindName, "rlef"]


class EnvironmentSettings(Record):
    """How one environment counts in a run: how often its prompts are drawn and how much
    its rewards weigh. The two are separate: a share changes how many of a step's prompts
    are the environment's, a scale the size of each of their rewards (the advantage GRPO
    takes within a group then scales with it, unless `scale_rewards` divides it out)."""

    share: float | None = Field(None, gt=0, description="sampling weight: prompts are drawn across environments in "
                                                        "proportion to it")
    reward_scale: float = Field(1.0, gt=0, description="every reward of the environment is multiplied by it")

    @model_validator(mode="before")
    @classmethod
    def _bare_share(cls, value: Any) -> Any:
        # A bare number is a share: how configs wrote an environment before scales existed.
        return cls.given(value)

    @staticmethod
    def given(value: Any) -> Any:
        """An environment's settings as written (a number is its share), as a dict to merge."""
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return {"share": value}
        if isinstance(value, EnvironmentSettings):
            return value.model_dump(exclude_unset=True)
        return dict(value) if isinstance(value, dict) else value


# The self-execution paper (Maimon et al.) trains output prediction beside its main
# environment, drawing it for 15% of the prompts (25% when the main one is Self-RLEF's
# multi-turn repair) and scaling its reward by 0.8. A scale survives GRPO's advantage only
# if rewards are not divided by their own group's spread, so a preset also sets
# `scale_rewards = "batch"` unless the config says otherwise.
PRESETS: Final[dict[str, dict[str, dict[str, float]]]] = {
    "self-execution-paper": {"repair": {"share": 0.85}, "predict": {"share": 0.15, "reward_scale": 0.8}},
    "self-execution-paper-rlef": {"rlef": {"share": 0.75}, "predict": {"share": 0.25, "reward_scale": 0.8}},
}


class GrpoSettings(Record):
    learning_rate: float = Field(3e-5, gt=0)
    warmup_ratio: float = Field(0.1, ge=0, lt=1)
    lr_scheduler: str = "constant_with_warmup"
    prompts_per_step: int = Field(8, gt=0)
    samples_per_prompt: int = Field(32, gt=1, description="the group size GRPO normalises rewards over")
    micro_batch_size: int = Field(8, gt=0, description="sequences per device per forward/backward pass")
    updates: int = Field(20, gt=0, description="optimizer updates, one per generation batch")
    beta: float = Field(0.1, ge=0, description="KL coefficient against the starting policy")
    loss_type: str = "dapo"
    scale_rewards: Literal["group", "batch", "none"] = "group"
    num_iterations: int = Field(1, gt=0)
    epsilon: float = Field(0.2, gt=0)
    temperature: float = Field(1.0, gt=0)
    top_p: float = Field(1.0, gt=0, le=1)
    max_completion_length: int = Field(4096, gt=0)
    mask_truncated_completions: bool = False
    # A named mix of environments (PRESETS); `environments` given beside it overrides it key by key.
    preset: Literal["self-execution-paper", "self-execution-paper-rlef"] | None = None
    # Per environment a run mixes, how often its prompts are drawn (`share`) and how much its
    # rewards weigh (`reward_scale`), e.g. {repair = {share = 0.85}, predict = {share = 0.15,
    # reward_scale = 0.8}}; a bare number is a share. No share anywhere: every prompt of the
    # data given is equally likely (train/schedule.py).
    environments: dict[EnvironmentName, EnvironmentSettings] = Field(default_factory=dict)

    @model_validator(mode="before")
    @classmethod
    def _apply_preset(cls, data: Any) -> Any:
        if not isinstance(data, dict) or data.get("preset") not in PRESETS:
            return data
        merged = {env: dict(values) for env, values in PRESETS[data["preset"]].items()}
        for env, given in (data.get("environments") or {}).items():
            merged[env] = {**merged.get(env, {}), **EnvironmentSettings.given(given)}
        return {"scale_rewards": "batch", **data, "environments": merged}

    @model_validator(mode="after")
    def _scales_count(self) -> "GrpoSettings":
        scaled = next((env for env, s in self.environments.items() if s.reward_scale != 1), None)
        if scaled is not None and self.scale_rewards == "group":
            raise ValueError(f"grpo.environments.{scaled}.reward_scale has no effect when scale_rewards is "
                             f"'group' (each group's rewards are divided by their own spread, and a group is one "
                             f"environment's): set grpo.scale_rewards to 'batch' or 'none'")
        return self

    @property
    def global_batch(self) -> int:
        return self.prompts_per_step * self.samples_per_prompt

    def shares(self) -> dict[str, float]:
        """The sampling weights given, by environment (schedule.resolve_weights)."""
        return {env: s.share for env, s in self.environments.items() if s.share is not None}

    def reward_scales(self) -> dict[str, float]:
        return {env: s.reward_scale for env, s in self.environments.items()}


class RuntimeSettings(Record):
    device: Literal["auto", "cpu", "cuda"] = "auto"
    precision: Literal["auto", "bf16", "fp32"] = "auto"
    seed: int = 0
    # On CPU, torch threads beyond half the cores only spin against the verifier's
    # compilers (and on a busy machine make each step many times slower).
    cpu_threads: int | None = Field(None, gt=0, description="torch threads on CPU (default: half the cores)")
    gradient_checkpointing: bool = True
    checkpoint_every: int = Field(1, gt=0, description="save NAME@iterK every this many updates")
    keep_trainer_checkpoints: int = Field(2, gt=0, description="optimizer states kept for --resume")
    generation: Literal["transformers", "vllm-server", "vllm-colocate"] = "transformers"
    # Passed to TRL's GRPOConfig as they are (keys must start with `vllm_`), e.g.
    # vllm_server_base_url, vllm_gpu_memory_utilization, vllm_tensor_parallel_size.
    vllm: dict[str, Any] = Field(default_factory=dict)
    verifier: str = "sandbox"  # train/rewards.py's verifiers by name ("cpp" is an older name of "sandbox")
    sandbox: Literal["auto", "docker", "local"] = "auto"
    verify_workers: int | None = Field(None, gt=0, description="parallel verifications (default: the machine's cores, "
                                                              "or a Ray cluster's slots)")
    executor: ExecutorSettings | None = None  # where the verifier runs; None: as HARNESS_EXECUTOR says (local)

    @model_validator(mode="after")
    def _vllm_keys(self) -> "RuntimeSettings":
        odd = [k for k in self.vllm if not k.startswith("vllm_")]
        if odd:
            raise ValueError(f"runtime.vllm takes TRL's vllm_* options only, not {odd[0]!r}")
        return self


class TrainConfig(Record):
    schema_version: Literal[1] = SCHEMA_VERSION
    lora: LoraSettings = Field(default_factory=LoraSettings)
    sft: SftSettings = Field(default_factory=SftSettings)
    dpo: DpoSettings = Field(default_factory=DpoSettings)
    grpo: GrpoSettings = Field(default_factory=GrpoSettings)
    runtime: RuntimeSettings = Field(default_factory=RuntimeSettings)


def _merge(base: dict, over: dict) -> dict:
    out = dict(base)
    for key, value in over.items():
        out[key] = _merge(out[key], value) if isinstance(value, dict) and isinstance(out.get(key), dict) else value
    return out


def parse_assignment(text: str) -> dict:
    """`section.key=value` as a nested dict; the value is read as TOML (so numbers, booleans,
    quoted strings and lists keep their types) and otherwise taken as a bare string."""
    key, sep, raw = text.partition("=")
    if not sep or not key.strip():
        raise BadInput(f"--set {text!r}: write it as section.key=value, e.g. grpo.beta=0.05")
    try:
        value = tomllib.loads(f"v = {raw.strip()}")["v"]
    except tomllib.TOMLDecodeError:
        value = raw.strip()
    node: Any = value
    for part in reversed(key.strip().split(".")):
        node = {part: node}
    return node


def load_config(path: Path | None = None, overrides: list[dict] | None = None) -> TrainConfig:
    """The defaults, then the TOML file, then each override in order."""
    data: dict = {}
    if path is not None:
        data = read_toml(path)
    for over in overrides or []:
        data = _merge(data, over)
    try:
        return TrainConfig.model_validate(data)
    except ValidationError as exc:
        raise invalid(exc, str(path or "training config")) from None


def resolve_device(runtime: RuntimeSettings) -> str:
    """The device to train on; on CPU this also sets torch's thread count."""
    # torch is the train extra's, and seconds to import: only when training starts
    import torch

    device = runtime.device
    if device == "auto":
        device = "cuda" if torch.cuda.is_available() else "cpu"
    if device == "cuda" and not torch.cuda.is_available():
        raise BadInput("runtime.device is cuda but torch sees no CUDA device")
    if device == "cpu":
        torch.set_num_threads(runtime.cpu_threads or max(1, (os.cpu_count() or 2) // 2))
    return device


def world_size() -> int:
    """Processes training together, as the launcher says (torchrun and `accelerate launch`
    set WORLD_SIZE). Read from the environment because the distributed state must not be
    created before the trainer's arguments create it (with their device settings)."""
    return int(os.environ.get("WORLD_SIZE", "1"))


def use_bf16(runtime: RuntimeSettings, device: str) -> bool:
    """bf16 where the device supports it: on CUDA with bf16 support (Ampere and later);
    never on CPU, where bf16 matmuls are slow on most processors."""
    # torch is the train extra's, and seconds to import: only when training starts
    import torch

    supported = device == "cuda" and torch.cuda.is_bf16_supported()
    if runtime.precision == "bf16" and not supported:
        raise BadInput(f"runtime.precision is bf16 but the {device} device does not support it")
    return runtime.precision == "bf16" or (runtime.precision == "auto" and supported)


def common_trainer_args(stage, runtime: "RuntimeSettings", output_dir, device: str, bf16: bool) -> dict:
    """The trainer arguments every stage shares; `stage` is config.sft, config.dpo or config.grpo."""
    return dict(
        output_dir=str(output_dir),
        seed=runtime.seed,
        learning_rate=stage.learning_rate,
        # transformers reads a warm-up below 1 as a fraction of the steps.
        warmup_steps=stage.warmup_ratio,
        lr_scheduler_type=stage.lr_scheduler,
        activation_checkpointing=runtime.gradient_checkpointing,
        bf16=bf16,
        use_cpu=device == "cpu",
        logging_steps=1,
        report_to=[],
        disable_tqdm=True,
    )
