"""GRPO wired to the real C++ verifier: a tiny model, briefly taught to open a whole-file
listing of phone-number's files, samples 2 prompts x 4 answers for 2 updates; every
answer is built in the Docker sandbox, none compiles (a random model writes garbage), so
every reward is -1 and the log carries the verifier's statuses."""

from __future__ import annotations

import json
import os
import shutil

import pytest

from harness.editformat import render_whole
from harness.task import load_task
from harness.train.data import ChatMessage, GrpoRow, SftRow, write_jsonl

from .conftest import ROOT
from .train_support import CPU, harness, steps_of

pytestmark = [pytest.mark.slow, pytest.mark.docker]

VERIFIER_STATUSES = {"ok", "compile_error", "timeout", "crash", "forged", "incomplete", "malformed"}


def ask(i: int) -> str:
    return f"Repair phone-number ({i}): write phone_number.cpp and phone_number.h in full."


@pytest.fixture(scope="module")
def curriculum(tmp_path_factory):
    root = tmp_path_factory.mktemp("cpp-curriculum")
    task_dir = root / "phone-number-r1"
    shutil.copytree(ROOT / "suites" / "fixed26" / "phone-number", task_dir)
    reference = {k: v.decode() for k, v in load_task(task_dir).reference_files().items()}
    answer = render_whole(reference)
    sft = [SftRow(task_id="cpp/phone-number-r1", source_task="fixed26/phone-number",
                  messages=[ChatMessage(role="user", content=ask(i % 2)), ChatMessage(role="assistant", content=answer)])
           for i in range(16)]
    grpo = [GrpoRow(task_id="cpp/phone-number-r1", source_task="fixed26/phone-number", task_path="phone-number-r1",
                    prompt=[ChatMessage(role="user", content=ask(i))]) for i in range(2)]
    write_jsonl(root / "sft.jsonl", sft)
    write_jsonl(root / "grpo.jsonl", grpo)
    (root / "manifest.json").write_text(json.dumps({"content_hash": "t", "source_tasks": ["fixed26/phone-number"]}))
    return root


@pytest.fixture(scope="module")
def state(tmp_path_factory):
    old = os.environ.get("HARNESS_STATE_DIR")
    path = tmp_path_factory.mktemp("state")
    os.environ["HARNESS_STATE_DIR"] = str(path)
    yield path
    if old is None:
        os.environ.pop("HARNESS_STATE_DIR", None)
    else:
        os.environ["HARNESS_STATE_DIR"] = old


def test_grpo_with_the_cpp_verifier_scores_garbage_minus_one_with_statuses(docker_sandbox, curriculum, state, tmp_path):
    from harness.tinymodel import build_tiny_model

    base = build_tiny_model(tmp_path / "base")
    runs = tmp_path / "runs"
    # Only the start of the answer matters here: the file name line and the opening fence.
    sft = harness("train", "sft", "--data", str(curriculum), "--base", str(base), "--out", "cpp-sft", "--runs-dir",
                  str(runs), "--epochs", "15", "--lr", "3e-3", "--set", "sft.batch_size=16",
                  "--set", "sft.micro_batch_size=16", "--set", "sft.max_length=64", *CPU)
    assert sft.returncode == 0, sft.stderr
    grpo = harness("train", "grpo", "--curriculum", str(curriculum), "--base", str(base), "--init-adapter", "cpp-sft",
                   "--out", "cpp-grpo", "--runs-dir", str(runs), "--updates", "2", "--prompts-per-step", "2",
                   "--samples", "4", "--max-completion-length", "24", "--verifier", "cpp", "--sandbox", "docker",
                   "--set", "grpo.micro_batch_size=8", "--set", "grpo.temperature=0.1", *CPU)
    assert grpo.returncode == 0, grpo.stderr
    steps = steps_of(runs / "train" / "cpp-grpo" / "log.jsonl")
    assert [s["step"] for s in steps] == [1, 2]
    statuses: dict[str, int] = {}
    for s in steps:
        assert s["completions"] == 8 and s["reward_mean"] == -1.0 and s["pass_rate"] == 0.0
        assert sum(s["statuses"].values()) == 8 and set(s["statuses"]) <= VERIFIER_STATUSES
        for k, v in s["statuses"].items():
            statuses[k] = statuses.get(k, 0) + v
    print(f"statuses over 16 answers: {statuses}; verify seconds per update: {[s['verify_seconds'] for s in steps]}")
    # The verifier itself judged some answers (they were listings it could build and reject).
    assert statuses.get("compile_error", 0) > 0
    assert all(s["verify_seconds"] > 0 for s in steps)
    assert (state / "adapters" / "cpp-grpo@iter2.toml").is_file()
