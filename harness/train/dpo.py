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
from .checkpoints import TrainRun, TrainRunManifest
from .config import TrainConfig, common_trainer_args, resolve_device, use_bf16, world_size
from .data import load_preference, preference_records
from .model import base_ref, init_adapter_dir, load_tokenizer, policy
from .offline import begin, fit_and_publish
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
    # datasets, trl and the step logger's torch are the train extra's: imported when training starts
    from datasets import Dataset
    from trl import DPOTrainer

    from .step_callback import StepLogger

    console = console or Console(stderr=True)
    base = base_ref(base)
    rows, source = load_preference(data)
    run = TrainRun.new(runs_dir, TrainRunManifest(
        kind="dpo", name=out, base_model=base, init_adapter=init_adapter, data=[str(source.jsonl)],
        curriculum=str(source.curriculum) if source.curriculum else None, dataset_hash=source.dataset_hash,
        trained_on_tasks=source.trained_on_tasks, config=config))
    adapter_dir = init_adapter_dir(init_adapter, base) if init_adapter else None
    device = resolve_device(config.runtime)
    bf16 = use_bf16(config.runtime, device)
    args = dpo_args(config, run.trainer_dir, device, bf16)
    main = begin(run, args, config, f"dpo {out}: {len(rows)} preference pairs, base {base}"
                 f"{', from adapter ' + init_adapter if init_adapter else ''}, {device}{' bf16' if bf16 else ''}",
                 console)

    records = preference_records(rows)
    scored = Dataset.from_list(records[: config.dpo.eval_rows]) if config.dpo.eval_rows else None
    model, peft_config = policy(base, bf16, adapter_dir, config.lora)
    trainer = DPOTrainer(
        model=model, args=args, train_dataset=Dataset.from_list(records), eval_dataset=scored,
        processing_class=load_tokenizer(base), peft_config=peft_config,
        callbacks=[StepLogger(run.log_path, console, f"dpo {out}", dpo_step_builder(), dpo_line, main)],
    )
    fit_and_publish(run, trainer, scored=len(scored) if scored is not None else 0,
                    max_length_setting=f"dpo.max_length={config.dpo.max_length}", main=main, console=console)
    return run
