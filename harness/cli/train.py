"""`harness train sft`, `harness train dpo` and `harness train grpo`: LoRA fine-tuning with TRL. Flags set the
common settings; `--config FILE` (TOML, the sections of harness.train.config.TrainConfig)
and `--set section.key=value` set any of them. Multi-GPU: `accelerate launch -m
harness.train grpo ...` runs the same commands in every process."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import List, Optional

import typer

from ..errors import BadInput
from ..train.config import load_config, parse_assignment
from .app import app, err, handled
from .options import EXECUTOR, RAY_ADDRESS

train_app = typer.Typer(
    no_args_is_help=True, add_completion=False,
    help="Fine-tune LoRA adapters: whole-file SFT, DPO on preference pairs, and GRPO rewarded by the verifiers.",
)
app.add_typer(train_app, name="train")

_CONFIG = typer.Option(None, "--config", help="TOML file of settings (tables lora, sft, dpo, grpo, runtime)")
_SET = typer.Option([], "--set", help="one setting, section.key=value (repeatable), e.g. grpo.beta=0.05")
_RUNS = typer.Option(Path("runs"), "--runs-dir", help="training runs go to RUNS_DIR/train/NAME")
_BASE_HELP = "base model: hub id or local folder"


def _overrides(sets: list[str], flags: Mapping[str, object]) -> list[dict]:
    out = [parse_assignment(s) for s in sets]
    for dotted, value in flags.items():
        if value is not None:
            node: object = value
            for part in reversed(dotted.split(".")):
                node = {part: node}
            out.append(node)  # type: ignore[arg-type]
    return out


@train_app.command("sft")
@handled
def sft_cmd(
    data: str = typer.Option(..., "--data", help="a curriculum (name or folder) or an sft.jsonl file"),
    base: str = typer.Option(..., "--base", help=_BASE_HELP),
    out: str = typer.Option(..., "--out", help="the adapter's name (its card and run folder)"),
    init_adapter: Optional[str] = typer.Option(None, "--init-adapter", help="continue training this adapter (a card name)"),
    config: Optional[Path] = _CONFIG,
    sets: List[str] = _SET,
    epochs: Optional[float] = typer.Option(None, help="passes over the data"),
    lr: Optional[float] = typer.Option(None, "--lr", help="learning rate"),
    rank: Optional[int] = typer.Option(None, help="LoRA rank"),
    alpha: Optional[float] = typer.Option(None, help="LoRA alpha"),
    device: Optional[str] = typer.Option(None, help="auto, cpu or cuda"),
    seed: Optional[int] = typer.Option(None),
    runs_dir: Path = _RUNS,
):
    """LoRA SFT on whole-file answers (loss on the answer only, the base model's chat template)."""
    # The training modules (a quarter of a second to import, torch's loaders behind them)
    # load for a training command only, not at every command's start.
    from ..train.sft import train_sft

    flags = {"sft.epochs": epochs, "sft.learning_rate": lr, "lora.rank": rank, "lora.alpha": alpha,
             "runtime.device": device, "runtime.seed": seed}
    cfg = load_config(config, _overrides(sets, flags))
    train_sft(data=data, base=base, out=out, config=cfg, init_adapter=init_adapter, runs_dir=runs_dir, console=err)


@train_app.command("dpo")
@handled
def dpo_cmd(
    curriculum: str = typer.Option(..., "--curriculum", help="a test-writing export (name or folder) or its "
                                   "preference.jsonl, e.g. NAME/preference.jsonl"),
    base: str = typer.Option(..., "--base", help=_BASE_HELP),
    out: str = typer.Option(..., "--out", help="the adapter's name (its card and run folder)"),
    init_adapter: Optional[str] = typer.Option(None, "--init-adapter", help="continue training this adapter (a card "
                                               "name); it is also the reference DPO holds the policy to"),
    config: Optional[Path] = _CONFIG,
    sets: List[str] = _SET,
    epochs: Optional[float] = typer.Option(None, help="passes over the pairs"),
    lr: Optional[float] = typer.Option(None, "--lr", help="learning rate"),
    beta: Optional[float] = typer.Option(None, help="DPO beta: how far the policy may move from the reference"),
    rank: Optional[int] = typer.Option(None, help="LoRA rank (a new adapter only)"),
    alpha: Optional[float] = typer.Option(None, help="LoRA alpha (a new adapter only)"),
    device: Optional[str] = typer.Option(None, help="auto, cpu or cuda"),
    seed: Optional[int] = typer.Option(None),
    runs_dir: Path = _RUNS,
):
    """LoRA DPO on preference pairs (a chosen and a rejected answer to the same prompt) with TRL's DPOTrainer."""
    # As in sft_cmd: the training modules load for a training command only.
    from ..train.dpo import train_dpo

    flags = {"dpo.epochs": epochs, "dpo.learning_rate": lr, "dpo.beta": beta, "lora.rank": rank, "lora.alpha": alpha,
             "runtime.device": device, "runtime.seed": seed}
    cfg = load_config(config, _overrides(sets, flags))
    train_dpo(data=curriculum, base=base, out=out, config=cfg, init_adapter=init_adapter, runs_dir=runs_dir,
              console=err)


@train_app.command("grpo")
@handled
def grpo_cmd(
    out: str = typer.Option(..., "--out", help="the adapter's name; checkpoints are NAME@iterK"),
    curriculum: List[str] = typer.Option([], "--curriculum", help="a curriculum or an output-prediction set (name or "
                                         "folder), or its grpo.jsonl / grpo-predict.jsonl; rlef:NAME trains a repair "
                                         "curriculum in two turns (public tests' results, then one repair); repeat it to "
                                         "mix environments (shares and reward scales: grpo.environments, grpo.preset)"),
    base: Optional[str] = typer.Option(None, "--base", help=_BASE_HELP),
    init_adapter: Optional[str] = typer.Option(None, "--init-adapter", help="continue training this adapter (a card name)"),
    config: Optional[Path] = _CONFIG,
    sets: List[str] = _SET,
    resume: bool = typer.Option(False, "--resume", help="continue the run named --out from its last checkpoint"),
    updates: Optional[int] = typer.Option(None, help="GRPO updates"),
    prompts_per_step: Optional[int] = typer.Option(None, help="prompts per update"),
    samples: Optional[int] = typer.Option(None, help="samples per prompt (the group size)"),
    lr: Optional[float] = typer.Option(None, "--lr", help="learning rate"),
    beta: Optional[float] = typer.Option(None, help="KL coefficient"),
    rank: Optional[int] = typer.Option(None, help="LoRA rank (a new adapter only)"),
    alpha: Optional[float] = typer.Option(None, help="LoRA alpha (a new adapter only)"),
    max_completion_length: Optional[int] = typer.Option(None, help="tokens per sampled answer"),
    checkpoint_every: Optional[int] = typer.Option(None, help="publish NAME@iterK every this many updates"),
    verifier: Optional[str] = typer.Option(None, help="sandbox (harness.verify; cpp is its older name) or exact (string match)"),
    sandbox: Optional[str] = typer.Option(None, help="auto, docker or local"),
    executor: Optional[str] = EXECUTOR,
    ray_address: Optional[str] = RAY_ADDRESS,
    generation: Optional[str] = typer.Option(None, help="transformers, vllm-server or vllm-colocate (needs vLLM)"),
    vllm_server_url: Optional[str] = typer.Option(None, help="vllm-server: the server's base URL"),
    device: Optional[str] = typer.Option(None, help="auto, cpu or cuda"),
    seed: Optional[int] = typer.Option(None),
    runs_dir: Path = _RUNS,
):
    """GRPO on a LoRA adapter; each sampled answer is judged by its environment: repairs built and tested by the
    verifier, output predictions by exact match."""
    # As in sft_cmd: the training modules load for a training command only.
    from ..train.grpo import train_grpo

    flags = {"grpo.updates": updates, "grpo.prompts_per_step": prompts_per_step, "grpo.samples_per_prompt": samples,
             "grpo.learning_rate": lr, "grpo.beta": beta, "lora.rank": rank, "lora.alpha": alpha,
             "grpo.max_completion_length": max_completion_length, "runtime.checkpoint_every": checkpoint_every,
             "runtime.verifier": verifier, "runtime.sandbox": sandbox, "runtime.generation": generation,
             "runtime.executor.kind": executor, "runtime.executor.address": ray_address,
             "runtime.vllm.vllm_server_base_url": vllm_server_url, "runtime.device": device, "runtime.seed": seed}
    overrides = _overrides(sets, flags)
    if resume:
        if config is not None or overrides:
            raise BadInput("--resume continues with the run's own config; drop --config, --set and setting flags")
        train_grpo(out=out, data=curriculum, base=base, init_adapter=init_adapter, runs_dir=runs_dir, resume=True,
                   console=err)
        return
    if not curriculum or base is None:
        raise BadInput("--curriculum and --base are required (or --resume to continue a run)")
    train_grpo(out=out, data=curriculum, base=base, config=load_config(config, overrides), init_adapter=init_adapter,
               runs_dir=runs_dir, console=err)
