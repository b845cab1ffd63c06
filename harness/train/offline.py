"""What the stages trained on fixed data share (`sft` on answers, `dpo` on preference
pairs), as against GRPO, which samples its own: claim the run and log its start, then
train with the loss on (up to `eval_rows` of) the training data measured before and after,
so the log says whether the adapter learned its data, and publish the adapter as NAME with
its card."""

from __future__ import annotations

import time

from rich.console import Console

from ..errors import BadInput
from .checkpoints import TrainRun
from .config import TrainConfig
from .model import quiet_and_synchronised
from .steplog import EndRecord, StartRecord, append


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
