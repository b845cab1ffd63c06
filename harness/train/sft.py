"""`harness train sft`: the whole-file warm start. LoRA SFT with TRL's SFTTrainer on a
curriculum's sft.jsonl, through the base model's chat template, with the loss on the
assistant's answer only (TRL's prompt-completion form). The loss on (up to `eval_rows`
rows of) the training data is measured before and after, so the log says whether the
adapter learned its data; the adapter is published as NAME with its card."""

from __future__ import annotations

from pathlib import Path

from rich.console import Console

from .checkpoints import TrainRun
from .config import TrainConfig
from .data import load_sft, sft_records
from .offline import offline_trainer_args, train_offline
from .steplog import sft_line, sft_step_builder


def sft_args(config: TrainConfig, output_dir: Path, device: str, bf16: bool):
    # trl is the train extra's: imported when training starts
    from trl import SFTConfig

    return SFTConfig(**offline_trainer_args("sft", config.sft, config.runtime, output_dir, device, bf16))


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
