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

from ..errors import BadInput
from .checkpoints import TrainRun
from .config import TrainConfig, common_trainer_args, world_size
from .data import load_preference, preference_records
from .offline import train_offline
from .steplog import dpo_line, dpo_step_builder

def dpo_args(config: TrainConfig, output_dir: Path, device: str, bf16: bool):
    # trl is the train extra's: imported when training starts
    from trl import DPOConfig

    d, rt = config.dpo, config.runtime
    per_step = d.micro_batch_size * world_size()
    if d.batch_size % per_step:
        raise BadInput(f"dpo: batch_size {d.batch_size} is not a multiple of micro_batch_size x devices = {per_step}")
    return DPOConfig(
        **common_trainer_args(d, rt, output_dir, device, bf16),
        num_train_epochs=d.epochs,
        per_device_train_batch_size=d.micro_batch_size,
        per_device_eval_batch_size=d.micro_batch_size,
        gradient_accumulation_steps=d.batch_size // per_step,
        max_length=d.max_length,
        beta=d.beta,
        loss_type=[d.loss_type],
        save_strategy="no",
    )


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
