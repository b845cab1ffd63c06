"""A few GRPO updates on CUDA in bf16, with the seconds per update split into generation,
verification and the rest of the update, printed as JSON.

A prepared check for a machine with a GPU, not part of the test command. For each model
size (the tiny random model, about 100 K parameters, and a small random one, about 30 M)
it runs a short SFT on the toy curriculum (tests/train_support.py: whole-file answers of
one word) so answers are listings, then GRPO with the study's batch shape (8 prompts x 32
samples = 256 completions per update) through `harness.train`, exactly as `harness train`
runs, rewarded by the string-level `exact` verifier (no Docker needed; the C++ verifier's
cost is measured by tests/bench/bench_grpo.py and tests/bench/bench_verify.py). It needs
torch with CUDA, transformers, peft, trl and this repository, and takes about a minute.

    python tests/gpu/bench_grpo_cuda.py --out gpu-grpo.json
    python tests/gpu/bench_grpo_cuda.py --device cpu --models tiny --updates 2   # a dry run
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

MODELS = {
    "tiny": dict(),
    "small": dict(vocab_size=512, hidden_size=512, intermediate_size=1536, num_layers=8, num_heads=8, num_kv_heads=4),
}
PARTS = ("gen_seconds", "verify_seconds", "verify_wait_seconds", "update_seconds", "step_seconds")


def bench(name: str, spec: dict, args, tmp: Path) -> dict:
    from rich.console import Console

    from tests.tinymodel import TinyModelSpec, build_tiny_model
    from harness.train.config import load_config, parse_assignment, use_bf16
    from harness.train.grpo import train_grpo
    from harness.train.sft import train_sft
    from tests.train_support import steps_of, write_toy_curriculum

    quiet = Console(file=open(os.devnull, "w"))
    base = build_tiny_model(tmp / name / "base", TinyModelSpec(**spec))
    cur = write_toy_curriculum(tmp / name / "toy", "green", cases=8)
    common = [f"runtime.device='{args.device}'", "runtime.gradient_checkpointing=false", "runtime.verifier='exact'"]
    sft = load_config(None, [parse_assignment(s) for s in common + [
        "sft.epochs=20", "sft.learning_rate=3e-3", "sft.batch_size=16", "sft.micro_batch_size=16"]])
    t0 = time.perf_counter()
    train_sft(data=str(cur), base=str(base), out=f"{name}-sft", config=sft, runs_dir=tmp / "runs", console=quiet)
    sft_seconds = time.perf_counter() - t0
    grpo = load_config(None, [parse_assignment(s) for s in common + [
        f"grpo.updates={args.updates}", "grpo.prompts_per_step=8", "grpo.samples_per_prompt=32",
        f"grpo.micro_batch_size={args.micro_batch}", f"grpo.max_completion_length={args.max_completion_length}",
        "grpo.learning_rate=1e-3", "grpo.temperature=0.1", f"runtime.checkpoint_every={args.updates}"]])
    t0 = time.perf_counter()
    run = train_grpo(data=str(cur), base=str(base), out=f"{name}-grpo", init_adapter=f"{name}-sft", config=grpo,
                     runs_dir=tmp / "runs", console=quiet)
    grpo_seconds = time.perf_counter() - t0
    steps = steps_of(run.log_path)
    measured = steps[1:] if len(steps) > 1 else steps  # the first update also warms kernels up
    return {
        "parameters": _count_parameters(base),
        "bf16": use_bf16(grpo.runtime, args.device),
        "sft_seconds": round(sft_seconds, 2),
        "grpo_seconds_with_load": round(grpo_seconds, 2),
        "mean_per_update_s": {k.removesuffix("_seconds"): round(statistics.mean(s[k] for s in measured), 4) for k in PARTS},
        "first_update_s": {k.removesuffix("_seconds"): steps[0][k] for k in PARTS},
        "reward_mean_by_update": [s["reward_mean"] for s in steps],
    }


def _count_parameters(base: Path) -> int:
    from transformers import AutoConfig, AutoModelForCausalLM

    return sum(p.numel() for p in AutoModelForCausalLM.from_config(AutoConfig.from_pretrained(base)).parameters())


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--device", default="cuda")
    p.add_argument("--models", default="tiny,small")
    p.add_argument("--updates", type=int, default=4)
    p.add_argument("--micro-batch", type=int, default=64, help="completions per forward/backward pass")
    p.add_argument("--max-completion-length", type=int, default=32)
    p.add_argument("--out", type=Path, default=None)
    args = p.parse_args()

    import torch

    if args.device == "cuda" and not torch.cuda.is_available():
        raise SystemExit("no CUDA device; pass --device cpu for a dry run")
    info = {"device": torch.cuda.get_device_name(0) if args.device == "cuda" else "cpu", "torch": torch.__version__,
            "batch": "8 prompts x 32 samples", "updates": args.updates, "max_completion_length": args.max_completion_length}
    results = {}
    with tempfile.TemporaryDirectory() as tmp:
        from tests.train_support import private_state

        with private_state(Path(tmp) / "state"):
            for name in args.models.split(","):
                results[name] = bench(name, MODELS[name], args, Path(tmp))
    text = json.dumps({"machine": info, "models": results}, indent=2)
    print(text)
    if args.out:
        args.out.write_text(text + "\n")


if __name__ == "__main__":
    main()
