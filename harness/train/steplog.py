"""The per-step training log: one JSON record per optimizer update in `log.jsonl`, and the
same figures as one line on the console (with a progress bar on a terminal).

    {"kind": "start", ...}   the run manifest with the resolved config
    {"kind": "step", ...}    SftStep, DpoStep or GrpoStep, one per update
    {"kind": "end", ...}     what the run came to

For GRPO the reward figures come from the reward function itself (exact, not smoothed),
the loss, KL, entropy and learning rate from the trainer's own logs, and the seconds from
timers around generation, verification and the whole update."""

from __future__ import annotations

import datetime as dt
import json
from dataclasses import dataclass
from pathlib import Path
from statistics import fmean, pstdev
from typing import Any, Callable, Literal

from pydantic import Field

from ..records import Record
from .checkpoints import TrainRunManifest
from .config import world_size
from .rewards import BatchStats, GrpoReward


def _now() -> str:
    return dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds")


class StartRecord(Record):
    kind: Literal["start"] = "start"
    schema_version: Literal[1] = 1
    time: str = Field(default_factory=_now)
    resumed_from_step: int | None = None
    run: TrainRunManifest


class _Step(Record):
    kind: Literal["step"] = "step"
    schema_version: Literal[1] = 1
    time: str = Field(default_factory=_now)
    step: int
    loss: float | None = None
    learning_rate: float | None = None
    grad_norm: float | None = None
    step_seconds: float


class SftStep(_Step):
    epoch: float | None = None
    mean_token_accuracy: float | None = None


class DpoStep(_Step):
    """TRL's DPO figures: the implicit rewards (beta x the log-probability ratio against
    the reference) of the chosen and rejected answers, their margin, and the share of
    pairs where the chosen one's is higher."""

    epoch: float | None = None
    reward_chosen: float | None = None
    reward_rejected: float | None = None
    reward_margin: float | None = None
    reward_accuracy: float | None = None


class Figures(Record):
    """What a set of scored completions came to."""

    completions: int
    reward_mean: float
    reward_std: float
    pass_rate: float                 # share of completions with R = 1
    malformed_rate: float            # share that could not be read in the answer format
    statuses: dict[str, int]         # the judges' statuses, with `malformed`
    # Multi-turn exchanges (rlef) that went on to a second answer; absent for other environments.
    second_turns: int | None = Field(None, exclude_if=lambda v: v is None)

    @classmethod
    def of(cls, stats: BatchStats) -> "Figures":
        n = len(stats.scored)
        return cls(completions=n, reward_mean=fmean(stats.rewards) if n else 0.0,
                   reward_std=pstdev(stats.rewards) if n else 0.0, pass_rate=stats.passed / n if n else 0.0,
                   malformed_rate=stats.malformed / n if n else 0.0, statuses=dict(sorted(stats.statuses.items())),
                   second_turns=stats.second_turns)


class GrpoStep(_Step, Figures):
    environments: dict[str, Figures] = Field(default_factory=dict, description="the same figures per environment")
    kl: float | None = None
    entropy: float | None = None
    completion_length: float | None = None
    gen_seconds: float               # sampling the completions
    verify_seconds: float            # verification wall time (overlaps the reference pass)
    verify_wait_seconds: float       # the part of it the update waited for
    update_seconds: float            # the rest of the update: log-probs, backward, optimizer


class EndRecord(Record):
    kind: Literal["end"] = "end"
    schema_version: Literal[1] = 1
    time: str = Field(default_factory=_now)
    steps: int
    seconds: float
    adapters: list[str]
    summary: dict[str, Any] = Field(default_factory=dict)


def append(path: Path, record: Record) -> None:
    with open(path, "a") as fh:
        fh.write(record.model_dump_json() + "\n")


def read_log(path: Path) -> list[dict]:
    return [json.loads(line) for line in Path(path).read_text().splitlines() if line.strip()]


def truncate_after(path: Path, step: int) -> None:
    """Drop step records past `step`: a resumed run redoes those updates."""
    if not path.is_file():
        return
    keep = [r for r in read_log(path) if not (r.get("kind") == "step" and r["step"] > step)]
    path.write_text("".join(json.dumps(r) + "\n" for r in keep))


@dataclass
class StepTimers:
    """Seconds spent generating since the last logged step (the trainer adds to it)."""

    gen_seconds: float = 0.0

    def take(self) -> float:
        seconds, self.gen_seconds = self.gen_seconds, 0.0
        return seconds


def _fmt(value: float | None, spec: str) -> str:
    return "-" if value is None else format(value, spec)


def grpo_line(r: GrpoStep, total: int) -> str:
    mix = "".join(f"  {name} {e.reward_mean:+.3f} (n {e.completions})" for name, e in r.environments.items()) \
        if len(r.environments) > 1 else ""
    return (f"step {r.step}/{total}  reward {r.reward_mean:+.3f}±{r.reward_std:.3f}{mix}  pass {r.pass_rate:.0%}  "
            f"malformed {r.malformed_rate:.0%}  kl {_fmt(r.kl, '.4f')}  loss {_fmt(r.loss, '.4f')}  "
            f"lr {_fmt(r.learning_rate, '.2e')}  gen {r.gen_seconds:.1f}s  verify {r.verify_seconds:.1f}s "
            f"(wait {r.verify_wait_seconds:.1f}s)  update {r.update_seconds:.1f}s")


def sft_line(r: SftStep, total: int) -> str:
    return (f"step {r.step}/{total}  loss {_fmt(r.loss, '.4f')}  acc {_fmt(r.mean_token_accuracy, '.3f')}  "
            f"lr {_fmt(r.learning_rate, '.2e')}  {r.step_seconds:.1f}s")


def sft_step_builder() -> Callable[[int, dict, float], SftStep]:
    def build(step: int, logs: dict, seconds: float) -> SftStep:
        return SftStep(step=step, loss=logs.get("loss"), learning_rate=logs.get("learning_rate"),
                       grad_norm=logs.get("grad_norm"), epoch=logs.get("epoch"),
                       mean_token_accuracy=logs.get("mean_token_accuracy"), step_seconds=round(seconds, 3))

    return build


def dpo_line(r: DpoStep, total: int) -> str:
    return (f"step {r.step}/{total}  loss {_fmt(r.loss, '.4f')}  margin {_fmt(r.reward_margin, '+.4f')}  "
            f"acc {_fmt(r.reward_accuracy, '.3f')}  lr {_fmt(r.learning_rate, '.2e')}  {r.step_seconds:.1f}s")


def dpo_step_builder() -> Callable[[int, dict, float], DpoStep]:
    def build(step: int, logs: dict, seconds: float) -> DpoStep:
        return DpoStep(step=step, loss=logs.get("loss"), learning_rate=logs.get("learning_rate"),
                       grad_norm=logs.get("grad_norm"), epoch=logs.get("epoch"),
                       reward_chosen=logs.get("rewards/chosen"), reward_rejected=logs.get("rewards/rejected"),
                       reward_margin=logs.get("rewards/margins"), reward_accuracy=logs.get("rewards/accuracies"),
                       step_seconds=round(seconds, 3))

    return build


def _gathered(stats: BatchStats, gen: float) -> tuple[BatchStats, float]:
    """Every process's rewards and statuses together; seconds of the slowest process."""
    # accelerate is the train extra's: imported when training starts
    from accelerate.utils import gather_object

    parts = gather_object([(stats, gen)])
    total = BatchStats()
    for part, _ in parts:
        total.add(part)
    total.verify_seconds = max(p.verify_seconds for p, _ in parts)
    total.wait_seconds = max(p.wait_seconds for p, _ in parts)
    return total, max(g for _, g in parts)


def grpo_step_builder(reward: GrpoReward, timers: StepTimers) -> Callable[[int, dict, float], GrpoStep]:
    def build(step: int, logs: dict, seconds: float) -> GrpoStep:
        stats, gen = reward.take_stats(), timers.take()
        if world_size() > 1:  # each process scored its own share of the batch
            stats, gen = _gathered(stats, gen)
        return GrpoStep(
            step=step, loss=logs.get("loss"), learning_rate=logs.get("learning_rate"), grad_norm=logs.get("grad_norm"),
            **Figures.of(stats).model_dump(),
            environments={env: Figures.of(stats.only(env)) for env in stats.environments()},
            kl=logs.get("kl"), entropy=logs.get("entropy"), completion_length=logs.get("completions/mean_length"),
            gen_seconds=round(gen, 3), verify_seconds=round(stats.verify_seconds, 3),
            verify_wait_seconds=round(stats.wait_seconds, 3),
            update_seconds=round(max(0.0, seconds - gen - stats.wait_seconds), 3),
            step_seconds=round(seconds, 3),
        )

    return build
