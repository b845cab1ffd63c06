"""Benchmark (not part of the test command): seconds per GRPO update on the tiny model on
CPU, split into generation, verification and the rest of the update.

    .venv/bin/python tests/bench/bench_grpo.py [--updates 4] [--prompts 2] [--samples 8]
        [--max-completion-length 64] [--verifier cpp|exact] [--sandbox docker] [--json]

A tiny random model (tests/tinymodel.py) gets a short SFT on a one-task curriculum made
from fixed26/phone-number, so its answers are whole-file listings the C++ verifier builds
(and rejects: they do not compile); then GRPO runs in process, the way `harness train grpo`
runs it. Per update, from the run's log.jsonl:
  gen          sampling the completions (transformers generate)
  verify       the verifier's wall time for the batch (parsing, sandbox builds and runs)
  verify_wait  the part of it the update waited for; verification starts right after
               generation and overlaps the reference model's forward pass
  update       the rest: reference and policy log-probabilities, backward, optimizer step
The first update also pays for starting sandbox sessions; the mean leaves it out when
there is more than one update. Figures depend on the machine's load (it is shared).
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

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tests.tinymodel import build_tiny_model  # noqa: E402
from harness.train.config import load_config, parse_assignment  # noqa: E402
from harness.train.grpo import train_grpo  # noqa: E402
from harness.train.sft import train_sft  # noqa: E402
from tests.train_support import private_state, steps_of, write_cpp_curriculum  # noqa: E402

PARTS = ("gen_seconds", "verify_seconds", "verify_wait_seconds", "update_seconds", "step_seconds")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--updates", type=int, default=4)
    p.add_argument("--prompts", type=int, default=2)
    p.add_argument("--samples", type=int, default=8)
    p.add_argument("--max-completion-length", type=int, default=64)
    p.add_argument("--verifier", default="cpp")
    p.add_argument("--sandbox", default="docker")
    p.add_argument("--json", action="store_true")
    args = p.parse_args()

    from rich.console import Console

    quiet = Console(file=open(os.devnull, "w"))
    with tempfile.TemporaryDirectory() as tmp, private_state(Path(tmp) / "state"):
        tmp = Path(tmp)
        base = build_tiny_model(tmp / "base")
        cur = write_cpp_curriculum(tmp / "cur", ROOT / "suites" / "fixed26" / "phone-number", prompts=args.prompts)
        common = ["runtime.device='cpu'", "runtime.gradient_checkpointing=false", "runtime.cpu_threads=1",
                  f"runtime.verifier='{args.verifier}'", f"runtime.sandbox='{args.sandbox}'"]
        sft_cfg = load_config(None, [parse_assignment(s) for s in common + [
            "sft.epochs=15", "sft.learning_rate=3e-3", "sft.batch_size=16", "sft.micro_batch_size=16", "sft.max_length=64"]])
        train_sft(data=str(cur), base=str(base), out="bench-sft", config=sft_cfg, runs_dir=tmp / "runs", console=quiet)
        batch = args.prompts * args.samples
        grpo_cfg = load_config(None, [parse_assignment(s) for s in common + [
            f"grpo.updates={args.updates}", f"grpo.prompts_per_step={args.prompts}", f"grpo.samples_per_prompt={args.samples}",
            f"grpo.micro_batch_size={batch}", f"grpo.max_completion_length={args.max_completion_length}",
            "grpo.temperature=0.1", f"runtime.checkpoint_every={args.updates}"]])
        load = os.getloadavg()[0]
        started = time.perf_counter()
        run = train_grpo(data=str(cur), base=str(base), out="bench-grpo", init_adapter="bench-sft", config=grpo_cfg,
                         runs_dir=tmp / "runs", console=quiet)
        total = time.perf_counter() - started
        steps = steps_of(run.log_path)

    measured = steps[1:] if len(steps) > 1 else steps
    result = {
        "machine": {"cpus": os.cpu_count(), "load_before": round(load, 2)},
        "settings": {"updates": args.updates, "completions_per_update": batch,
                     "max_completion_length": args.max_completion_length, "verifier": args.verifier,
                     "sandbox": args.sandbox},
        "mean_per_update_s": {k.removesuffix("_seconds"): round(statistics.mean(s[k] for s in measured), 3) for k in PARTS},
        "first_update_s": {k.removesuffix("_seconds"): steps[0][k] for k in PARTS},
        "statuses": {k: sum(s["statuses"].get(k, 0) for s in steps) for k in sorted({k for s in steps for k in s["statuses"]})},
        "run_seconds_with_model_load": round(total, 2),
    }
    if args.json:
        print(json.dumps(result))
        return
    print(f"GRPO on the tiny model, CPU, {batch} completions per update ({args.prompts} prompts x {args.samples}), "
          f"{args.verifier} verifier, load {load:.1f} before")
    for k, v in result["mean_per_update_s"].items():
        print(f"  {k:<12} {v:8.3f} s per update (first update {result['first_update_s'][k]:.3f})")
    print(f"  statuses: {result['statuses']}")


if __name__ == "__main__":
    main()
