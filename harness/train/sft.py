"""`harness train sft`: the whole-file warm start. LoRA SFT with TRL's SFTTrainer on a
curriculum's sft.jsonl, through the base model's chat template, with the loss on the
assistant's answer only (TRL's prompt-completion form). The loss on (up to `eval_rows`
rows of) the training data is measured before and after, so the log says whether the
adapter learned its data; the adapter is published as NAME with its card."""

from __future__ import annotations

from pathlib import Path

from rich.console import Console

from ..errors import BadInput
from .checkpoints import TrainRun
from .config import TrainConfig, common_trainer_args, world_size
from .data import load_sft, sft_records
from .offline import train_offline
from .steplog import sft_line, sft_step_builder


def sft_args(config: TrainConfig, output_dir: Path, device: str, bf16: bool):
    # trl is the train extra's: imported when training starts
    from trl import SFTConfig

    s, rt = config.sft, config.runtime
    per_step = s.micro_batch_size * world_size()
    if s.batch_size % per_step:
        raise BadInput(f"sft: batch_size {s.batch_size} is not a multiple of micro_batch_size x devices = {per_step}")
    return SFTConfig(
        **common_trainer_args(s, rt, output_dir, device, bf16),
        num_train_epochs=s.epochs,
        per_device_train_batch_size=s.micro_batch_size,
        per_device_eval_batch_size=s.micro_batch_size,
        gradient_accumulation_steps=s.batch_size // per_step,
        max_length=s.max_length,
        save_strategy="no",
    )


def train_sft(
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
    from trl import SFTTrainer

    return train_offline("sft", base=base, out=out, config=config, init_adapter=init_adapter, runs_dir=runs_dir,
                         console=console or Console(stderr=True), load=lambda: load_sft(data), records=sft_records,
                         make_args=sft_args, trainer_class=SFTTrainer, step_builder=sft_step_builder(), line=sft_line,
                         settings=config.sft, what="examples")
