"""`harness train dpo`: LoRA preference training with TRL's DPOTrainer on a preference.jsonl
(`harness tests export` writes one: a valid suite chosen over an invalid one, or over one
that kills fewer mutants), in TRL's conversational form through the base model's chat
template. The reference the policy is held to is the model it starts from: the base, or
with `--init-adapter` that adapter (TRL copies a peft policy's adapter into a frozen `ref`
adapter, trl 1.16.0 dpo_trainer.py), so DPO after SFT is held to the SFT model, not the
base under it."""

from __future__ import annotations

from pathlib import Path

from rich.console import Console

from .checkpoints import TrainRun
from .config import TrainConfig
from .data import load_preference, preference_records
from .offline import offline_trainer_args, train_offline
from .steplog import dpo_line, dpo_step_builder

def dpo_args(config: TrainConfig, output_dir: Path, device: str, bf16: bool):
    # trl is the train extra's: imported when training starts
    from trl import DPOConfig

    d = config.dpo
    return DPOConfig(**offline_trainer_args("dpo", d, config.runtime, output_dir, device, bf16), beta=d.beta,
                     loss_type=[d.loss_type])


def train_dpo(
    *,
    data: str,
    base: str,
    out: str,
    config: TrainConfig,
    init_adapter: str | None = None,
    runs_dir: Path = Path("runs"),
    console: Console | None = None,
) -> TrainRun:
    # trl is the train extra's: imported when training starts
    from trl import DPOTrainer

    return train_offline("dpo", base=base, out=out, config=config, init_adapter=init_adapter, runs_dir=runs_dir,
                         console=console or Console(stderr=True), load=lambda: load_preference(data), records=preference_records,
                         make_args=dpo_args, trainer_class=DPOTrainer, step_builder=dpo_step_builder(), line=dpo_line,
                         settings=config.dpo, what="preference pairs")
