"""Curricula for training tests, in the exact shape the curriculum builder exports
(harness.train.data), and helpers that run the real commands.

The toy curriculum: a repair task whose one solution file `answer.txt` must hold a fixed
word, sft.jsonl teaching the answer format with several words, grpo.jsonl pointing at the
task, and a manifest.json. The `exact` verifier scores it without a sandbox, so a tiny
model learns it in seconds. The C++ curriculum: one real suite task as a repair task."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
from contextlib import contextmanager
from pathlib import Path

from harness.agents.editformat import render_whole
from harness.task import load_task
from harness.training_files import ChatMessage, GrpoRow, SftRow, write_jsonl

WORDS = ("red", "green", "blue", "gold")


def ask(case: int) -> str:
    return f"Write one colour into answer.txt (case {case})."


def write_toy_task(folder: Path, answer: str) -> Path:
    (folder / ".meta").mkdir(parents=True, exist_ok=True)
    (folder / ".docs").mkdir(exist_ok=True)
    (folder / ".meta" / "config.json").write_text(json.dumps(
        {"files": {"solution": ["answer.txt"], "test": [], "example": [".meta/example.txt"]}}))
    (folder / ".meta" / "example.txt").write_text(answer + "\n")
    (folder / ".docs" / "instructions.md").write_text("Write the colour into answer.txt.\n")
    (folder / "answer.txt").write_text("?\n")
    return folder


def cpp_ask(i: int) -> str:
    return f"Repair phone-number ({i}): write phone_number.cpp and phone_number.h in full."


def write_cpp_curriculum(root: Path, suite_task: Path, prompts: int = 2) -> Path:
    """One repair task made from a real suite task (its folder copied as it is): sft.jsonl
    answers with the reference in the whole format, grpo.jsonl asks `prompts` ways. The
    prompts are short so a tiny model's SFT reaches the answer within a few dozen tokens."""
    # The folder keeps the suite task's name: Exercism's CMakeLists derives the file names
    # from it (a curriculum proper retargets the CMakeLists instead).
    slug = suite_task.name
    shutil.copytree(suite_task, root / slug)
    reference = {k: v.decode() for k, v in load_task(root / slug).reference_files().items()}
    source = f"{suite_task.parent.name}/{suite_task.name}"
    sft = [SftRow(task_id=f"cpp/{slug}", source_task=source,
                  messages=[ChatMessage(role="user", content=cpp_ask(i % prompts)),
                            ChatMessage(role="assistant", content=render_whole(reference))])
           for i in range(16)]
    grpo = [GrpoRow(task_id=f"cpp/{slug}", source_task=source, task_path=slug,
                    prompt=[ChatMessage(role="user", content=cpp_ask(i))]) for i in range(prompts)]
    write_jsonl(root / "sft.jsonl", sft)
    write_jsonl(root / "grpo.jsonl", grpo)
    (root / "manifest.json").write_text(json.dumps({"content_hash": "cpp", "source_tasks": [source]}))
    return root


def write_toy_curriculum(root: Path, target: str, *, cases: int = 8, sft_rows: int = 64) -> Path:
    """A curriculum folder whose GRPO prompts are rewarded only for `target`."""
    root.mkdir(parents=True, exist_ok=True)
    write_toy_task(root / "colour", target)
    sft = [SftRow(task_id="toy/colour", source_task="toy-suite/colour",
                  messages=[ChatMessage(role="user", content=ask(i % cases)),
                            ChatMessage(role="assistant", content=render_whole({"answer.txt": WORDS[i % len(WORDS)]}))])
           for i in range(sft_rows)]
    grpo = [GrpoRow(task_id="toy/colour", source_task="toy-suite/colour", task_path="colour",
                    prompt=[ChatMessage(role="user", content=ask(i))]) for i in range(cases)]
    write_jsonl(root / "sft.jsonl", sft)
    write_jsonl(root / "grpo.jsonl", grpo)
    (root / "manifest.json").write_text(json.dumps({"content_hash": "toy", "source_tasks": ["toy-suite/colour"]}))
    return root


# --- running the real commands ------------------------------------------------------------

HARNESS = str(Path(sys.executable).parent / "harness")

# Settings every training test shares: a tiny model on CPU needs neither activation
# checkpointing nor more than one thread.
CPU = ["--device", "cpu", "--set", "runtime.gradient_checkpointing=false", "--set", "runtime.cpu_threads=1"]


def harness(*args: str, timeout: float = 600, cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([HARNESS, *args], capture_output=True, text=True, timeout=timeout, cwd=cwd,
                          env=os.environ.copy())


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def sft_toy(curriculum: Path, base: Path, out: str, runs: Path) -> subprocess.CompletedProcess:
    """Enough SFT for the tiny model to write `answer.txt` listings (about 10 s)."""
    return harness("train", "sft", "--data", str(curriculum), "--base", str(base), "--out", out, "--runs-dir", str(runs),
                   "--epochs", "20", "--lr", "3e-3", "--set", "sft.batch_size=16", "--set", "sft.micro_batch_size=16",
                   *CPU)


def grpo_toy_args(curriculum: Path, base: Path, init: str, out: str, runs: Path, updates: int) -> list[str]:
    """GRPO on the toy curriculum with settings a tiny model learns from in a few dozen
    updates: 4 prompts x 8 samples, a large learning rate, and a low sampling temperature
    (its random output head keeps logits small, so at temperature 1 it samples noise)."""
    return ["train", "grpo", "--curriculum", str(curriculum), "--base", str(base), "--init-adapter", init, "--out", out,
            "--runs-dir", str(runs), "--updates", str(updates), "--prompts-per-step", "4", "--samples", "8",
            "--lr", "1e-3", "--max-completion-length", "20", "--verifier", "exact",
            "--set", "grpo.micro_batch_size=32", "--set", "grpo.temperature=0.1", *CPU]


def steps_of(log: Path) -> list[dict]:
    return [json.loads(line) for line in log.read_text().splitlines() if json.loads(line)["kind"] == "step"]


@contextmanager
def private_state(path: Path):
    """Cards and server records in `path` while the block runs (the commands read
    HARNESS_STATE_DIR from the environment they inherit)."""
    old = os.environ.get("HARNESS_STATE_DIR")
    os.environ["HARNESS_STATE_DIR"] = str(path)
    try:
        yield path
    finally:
        if old is None:
            os.environ.pop("HARNESS_STATE_DIR", None)
        else:
            os.environ["HARNESS_STATE_DIR"] = old
