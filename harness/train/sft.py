"""`harness train sft`: the whole-file warm start. LoRA SFT with TRL's SFTTrainer on a
curriculum's sft.jsonl, through the base model's chat template, with the loss on the
assistant's answer only (TRL's prompt-completion form). The loss on (up to `eval_rows`
rows of) the training data is measured before and after, so the log says whether the
adapter learned its data; the adapter is published as NAME with its card."""

from __future__ import annotations

from pathlib import Path

from rich.console import Console

from ..errors import BadInput
from .checkpoints import TrainRun, TrainRunManifest
from .config import TrainConfig, common_trainer_args, resolve_device, use_bf16, world_size
from .data import load_sft, sft_records
from .model import base_ref, init_adapter_dir, load_tokenizer, policy
from .offline import begin, fit_and_publish
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
    # datasets, trl and the step logger's torch are the train extra's: imported when training starts
    from datasets import Dataset
    from trl import SFTTrainer

    from .step_callback import StepLogger

    console = console or Console(stderr=True)
    base = base_ref(base)
    rows, source = load_sft(data)
    run = TrainRun.new(runs_dir, TrainRunManifest(
        kind="sft", name=out, base_model=base, init_adapter=init_adapter, data=[str(source.jsonl)],
        curriculum=str(source.curriculum) if source.curriculum else None, dataset_hash=source.dataset_hash,
        trained_on_tasks=source.trained_on_tasks, config=config))
    adapter_dir = init_adapter_dir(init_adapter, base) if init_adapter else None
    device = resolve_device(config.runtime)
    bf16 = use_bf16(config.runtime, device)
    args = sft_args(config, run.trainer_dir, device, bf16)
    main = begin(run, args, config, f"sft {out}: {len(rows)} examples, base {base}"
                 f"{', from adapter ' + init_adapter if init_adapter else ''}, {device}{' bf16' if bf16 else ''}",
                 console)

    records = sft_records(rows)
    scored = Dataset.from_list(records[: config.sft.eval_rows]) if config.sft.eval_rows else None
    model, peft_config = policy(base, bf16, adapter_dir, config.lora)
    trainer = SFTTrainer(
        model=model, args=args, train_dataset=Dataset.from_list(records), eval_dataset=scored,
        processing_class=load_tokenizer(base), peft_config=peft_config,
        callbacks=[StepLogger(run.log_path, console, f"sft {out}", sft_step_builder(), sft_line, main)],
    )
    fit_and_publish(run, trainer, scored=len(scored) if scored is not None else 0,
                    max_length_setting=f"sft.max_length={config.sft.max_length}", main=main, console=console)
    return run
