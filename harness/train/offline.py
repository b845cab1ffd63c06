"""What the stages trained on fixed data share (`sft` on answers, `dpo` on preference
pairs), as against GRPO, which samples its own: claim the run and log its start, then
train with the loss on (up to `eval_rows` of) the training data measured before and after,
so the log says whether the adapter learned its data, and publish the adapter as NAME with
its card."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Callable

from rich.console import Console

from ..errors import BadInput
from .checkpoints import TrainRun, TrainRunManifest
from .config import TrainConfig, common_trainer_args, resolve_device, use_bf16, world_size
from .model import base_ref, init_adapter_dir, load_tokenizer, policy, quiet_and_synchronised
from .steplog import EndRecord, StartRecord, append


def offline_trainer_args(kind: str, stage, runtime, output_dir: Path, device: str, bf16: bool) -> dict:
    """The trainer arguments of a stage on fixed data (`stage`: config.sft or config.dpo):
    epochs over it, its batch as micro-batches accumulated over the devices, no
    checkpoints of the trainer's own."""
    per_step = stage.micro_batch_size * world_size()
    if stage.batch_size % per_step:
        raise BadInput(f"{kind}: batch_size {stage.batch_size} is not a multiple of micro_batch_size x devices "
                       f"= {per_step}")
    return dict(
        **common_trainer_args(stage, runtime, output_dir, device, bf16),
        num_train_epochs=stage.epochs,
        per_device_train_batch_size=stage.micro_batch_size,
        per_device_eval_batch_size=stage.micro_batch_size,
        gradient_accumulation_steps=stage.batch_size // per_step,
        max_length=stage.max_length,
        save_strategy="no",
    )


def begin(run: TrainRun, args, config: TrainConfig, headline: str, console: Console) -> bool:
    """Write the run folder and its start record on the main process (True there), once
    every process has checked the run."""
    main = quiet_and_synchronised(args)
    if main:
        run.write()
        console.print(headline, markup=False, highlight=False)
        console.print_json(config.model_dump_json())
        append(run.log_path, StartRecord(run=run.manifest))
    return main


def fit_and_publish(run: TrainRun, trainer, *, scored: int, max_length_setting: str, main: bool,
                    console: Console) -> None:
    """Train, with the loss on the `scored` evaluation rows before and after, and publish
    the adapter under the run's name."""
    # transformers is the train extra's: imported when training starts
    from transformers import PrinterCallback

    trainer.remove_callback(PrinterCallback)
    name = run.manifest.name
    started = time.perf_counter()
    before = _eval_loss(trainer, max_length_setting) if scored else None
    trainer.train()
    after = _eval_loss(trainer, max_length_setting) if scored else None
    if main:
        card = run.publish(trainer.model, name, None)
        summary = {"loss_before": before, "loss_after": after, "rows_scored": scored}
        append(run.log_path, EndRecord(steps=trainer.state.global_step, seconds=round(time.perf_counter() - started, 3),
                                       adapters=[name], summary=summary))
        change = f"; loss on its data {before:.4f} -> {after:.4f}" if before is not None and after is not None else ""
        console.print(f"{run.manifest.kind} {name}: {trainer.state.global_step} steps{change}; card {card}",
                      markup=False, highlight=False)


def _eval_loss(trainer, max_length_setting: str) -> float:
    """The loss on the scored rows. None comes back when every answer token was cut off
    by max_length, leaving nothing to score (or to learn)."""
    loss = trainer.evaluate().get("eval_loss")
    if loss is None:
        raise BadInput(f"every scored example's answer lies beyond {max_length_setting} tokens; "
                       f"raise it with --set {max_length_setting.split('=')[0]}=N")
    return loss


def train_offline(kind: str, *, base: str, out: str, config: TrainConfig, init_adapter: str | None,
                  runs_dir: Path, console: Console, load: Callable, records: Callable, make_args: Callable,
                  trainer_class: Callable, step_builder, line, settings, what: str) -> TrainRun:
    """One run of a stage trained on fixed data: `load` the rows from the data, claim the
    run, build `kind`'s trainer over `records(rows)` (the first `settings.eval_rows` scored
    before and after) with the policy (a new adapter, or `init_adapter` continued), fit it
    and publish the adapter. `what` names a row in the headline (examples, preference pairs)."""
    # datasets and the step logger's torch are the train extra's: imported when training starts
    from datasets import Dataset

    from .step_callback import StepLogger

    base = base_ref(base)
    rows, source = load()
    run = TrainRun.new(runs_dir, TrainRunManifest(
        kind=kind, name=out, base_model=base, init_adapter=init_adapter, data=[str(source.jsonl)],
        curriculum=str(source.curriculum) if source.curriculum else None, dataset_hash=source.dataset_hash,
        trained_on_tasks=source.trained_on_tasks, config=config))
    adapter_dir = init_adapter_dir(init_adapter, base) if init_adapter else None
    device = resolve_device(config.runtime)
    bf16 = use_bf16(config.runtime, device)
    args = make_args(config, run.trainer_dir, device, bf16)
    main = begin(run, args, config, f"{kind} {out}: {len(rows)} {what}, base {base}"
                 f"{', from adapter ' + init_adapter if init_adapter else ''}, {device}{' bf16' if bf16 else ''}",
                 console)
    made = records(rows)
    scored = Dataset.from_list(made[: settings.eval_rows]) if settings.eval_rows else None
    model, peft_config = policy(base, bf16, adapter_dir, config.lora)
    trainer = trainer_class(
        model=model, args=args, train_dataset=Dataset.from_list(made), eval_dataset=scored,
        processing_class=load_tokenizer(base), peft_config=peft_config,
        callbacks=[StepLogger(run.log_path, console, f"{kind} {out}", step_builder, line, main)],
    )
    fit_and_publish(run, trainer, scored=len(scored) if scored is not None else 0,
                    max_length_setting=f"{kind}.max_length={settings.max_length}", main=main, console=console)
    return run
