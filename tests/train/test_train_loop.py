"""Real training with the real commands on a tiny random model (no downloads): SFT learns
its data, GRPO raises the reward the verifier gives (learning, not only running), every
checkpoint is an adapter with a correct card that the local server serves, and a killed
run resumes where its last checkpoint left it."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from statistics import fmean

import httpx
import pytest

from harness.adapter_card import load_card, verify_card
from harness.agents.editformat import parse_whole
from harness.hashing import sha256_bytes

from tests.train_support import (HARNESS, ask, free_port, grpo_toy_args, harness, private_state, sft_toy, steps_of,
                            write_toy_curriculum)

pytestmark = pytest.mark.slow

UPDATES = 30


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    """A tiny base model, a toy curriculum rewarding `green`, a private card folder, and an
    SFT adapter that writes answer listings."""
    from tests.tinymodel import build_tiny_model

    root = tmp_path_factory.mktemp("train")
    with private_state(root / "state"):
        world = {"root": root, "base": build_tiny_model(root / "base"), "cur": write_toy_curriculum(root / "toy", "green"),
                 "runs": root / "runs", "cards": root / "state" / "adapters"}
        world["sft"] = sft_toy(world["cur"], world["base"], "toy-sft", world["runs"])
        yield world


@pytest.fixture(scope="module")
def grpo_run(world):
    assert world["sft"].returncode == 0, world["sft"].stderr
    done = harness(*grpo_toy_args(world["cur"], world["base"], "toy-sft", "toy-grpo", world["runs"], UPDATES),
                   "--checkpoint-every", "10")
    assert done.returncode == 0, done.stderr
    return world["runs"] / "train" / "toy-grpo"


def test_sft_lowers_the_loss_on_its_own_data_and_publishes_a_card(world):
    assert world["sft"].returncode == 0, world["sft"].stderr
    run = world["runs"] / "train" / "toy-sft"
    records = [r for r in map(json.loads, (run / "log.jsonl").read_text().splitlines())]
    assert records[0]["kind"] == "start" and records[0]["run"]["config"]["sft"]["epochs"] == 20
    end = records[-1]
    assert end["kind"] == "end" and end["summary"]["rows_scored"] == 64
    assert end["summary"]["loss_after"] < end["summary"]["loss_before"] - 0.5
    assert len(steps_of(run / "log.jsonl")) == end["steps"] == 80  # 64 rows x 20 epochs / 16 per step
    card_file = world["cards"] / "toy-sft.toml"
    card = load_card(card_file)
    assert card.base_model == str(world["base"].resolve()) and (card.rank, card.alpha) == (16, 32)
    assert card.training.dataset_hash == sha256_bytes((world["cur"] / "sft.jsonl").read_bytes())
    assert card.training.trained_on_tasks == ["toy-suite/colour"] and card.training.parent is None
    assert card.training.config["kind"] == "sft" and "grpo" not in card.training.config
    verify_card(card, card_file)


def test_grpo_raises_the_mean_reward_with_a_fixed_seed(grpo_run):
    steps = steps_of(grpo_run / "log.jsonl")
    assert [s["step"] for s in steps] == list(range(1, UPDATES + 1))
    rewards = [s["reward_mean"] for s in steps]
    first, last = fmean(rewards[:5]), fmean(rewards[-5:])
    print(f"mean reward over the first 5 updates {first:+.3f}, over the last 5 {last:+.3f}")
    assert first < -0.5
    assert last > 0.0 and last > first + 0.8
    for s in steps:
        assert s["completions"] == 32 and sum(s["statuses"].values()) == 32
        assert s["malformed_rate"] == s["statuses"].get("malformed", 0) / 32
        assert s["pass_rate"] == pytest.approx((s["reward_mean"] + 1) / 2)  # exact rewards are +-1
        assert s["kl"] is not None and s["learning_rate"] is not None and s["loss"] is not None
        assert s["gen_seconds"] > 0 and s["step_seconds"] >= s["gen_seconds"]


def test_checkpoints_are_adapters_with_cards_that_the_local_server_serves(world, grpo_run):
    from harness.train.checkpoints import TrainRunManifest

    manifest = TrainRunManifest.model_validate_json((grpo_run / "run.json").read_text())
    for name, iteration in (("toy-grpo@iter10", 10), ("toy-grpo@iter20", 20), ("toy-grpo@iter30", 30), ("toy-grpo", 30)):
        card = load_card(world["cards"] / f"{name}.toml")
        assert card.training.iteration == iteration and card.training.parent == "toy-sft"
        assert card.training.dataset_hash == manifest.dataset_hash
        assert card.training.trained_on_tasks == ["toy-suite/colour"]
        assert card.training.source_run == str(grpo_run)
        assert card.training.config["grpo"]["updates"] == UPDATES
    assert not (world["cards"] / "toy-grpo@iter5.toml").exists()  # every 10 updates, as asked
    end = json.loads((grpo_run / "log.jsonl").read_text().splitlines()[-1])
    assert end["adapters"] == ["toy-grpo@iter10", "toy-grpo@iter20", "toy-grpo@iter30", "toy-grpo"]
    assert harness("adapters", "verify", "toy-grpo@iter20").returncode == 0

    port = free_port()
    started = harness("serve", "--backend", "local", "--device", "cpu", "--base", str(world["base"]), "--served-name",
                      "tiny", "--adapter", "toy-sft", "--adapter", "toy-grpo@iter30", "--port", str(port))
    assert started.returncode == 0, started.stderr
    try:
        answers = {}
        for name in ("toy-sft", "toy-grpo@iter30"):
            body = {"model": name, "messages": [{"role": "user", "content": ask(0)}], "temperature": 0, "max_tokens": 20}
            reply = httpx.post(f"http://127.0.0.1:{port}/v1/chat/completions", json=body, timeout=120)
            assert reply.status_code == 200, reply.text
            answers[name] = reply.json()["choices"][0]["message"]["content"]
        # The served checkpoint is the trained policy: its greedy answer is the rewarded one.
        assert parse_whole(answers["toy-grpo@iter30"], ["answer.txt"]).files == {"answer.txt": "green\n"}
        assert answers["toy-sft"] != answers["toy-grpo@iter30"]
    finally:
        assert harness("serve", "stop", "--port", str(port)).returncode == 0


def test_a_killed_run_resumes_from_its_last_checkpoint(world):
    assert world["sft"].returncode == 0, world["sft"].stderr
    run = world["runs"] / "train" / "toy-resume"
    proc = subprocess.Popen([HARNESS, *grpo_toy_args(world["cur"], world["base"], "toy-sft", "toy-resume", world["runs"], 8)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True)
    try:
        deadline = time.monotonic() + 300
        while not (run / "trainer" / "checkpoint-3" / "trainer_state.json").exists():
            assert proc.poll() is None, proc.stderr.read().decode()
            assert time.monotonic() < deadline, "no third checkpoint within 5 minutes"
            time.sleep(0.1)
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    killed_at = max(s["step"] for s in steps_of(run / "log.jsonl"))
    assert killed_at < 8
    # The kill can land after the trainer wrote its checkpoint and before that iteration was
    # published; make that case certain: the resumed run must publish it from the checkpoint.
    last = max(int(p.name.split("-")[1]) for p in (run / "trainer").glob("checkpoint-*"))
    shutil.rmtree(run / "adapters" / f"toy-resume@iter{last}", ignore_errors=True)
    (world["cards"] / f"toy-resume@iter{last}.toml").unlink(missing_ok=True)

    resumed = harness("train", "grpo", "--out", "toy-resume", "--runs-dir", str(world["runs"]), "--resume")
    assert resumed.returncode == 0, resumed.stderr
    records = [r for r in map(json.loads, (run / "log.jsonl").read_text().splitlines())]
    starts = [r for r in records if r["kind"] == "start"]
    assert len(starts) == 2 and starts[1]["resumed_from_step"] >= 3
    assert [s["step"] for s in steps_of(run / "log.jsonl")] == list(range(1, 9))  # none lost, none twice
    assert records[-1]["kind"] == "end" and records[-1]["steps"] == 8
    assert records[-1]["adapters"] == [f"toy-resume@iter{k}" for k in range(1, 9)] + ["toy-resume"]
    card = load_card(world["cards"] / "toy-resume@iter8.toml")
    assert card.training.iteration == 8
    assert harness("adapters", "verify", "toy-resume").returncode == 0


def test_resume_refuses_changed_data(world, tmp_path):
    """A resumed run must train on what it started with."""
    assert world["sft"].returncode == 0, world["sft"].stderr
    cur = write_toy_curriculum(tmp_path / "toy", "green")
    first = harness(*grpo_toy_args(cur, world["base"], "toy-sft", "toy-changed", world["runs"], 1))
    assert first.returncode == 0, first.stderr
    (cur / "colour" / ".meta" / "example.txt").write_text("blue\n")
    again = harness("train", "grpo", "--out", "toy-changed", "--runs-dir", str(world["runs"]), "--resume")
    assert again.returncode == 2 and "training data changed" in again.stderr


def test_two_processes_train_one_run_under_a_launcher(world):
    """`torchrun` (as `accelerate launch` does) starts two processes: they split each
    update's 16 completions, the log counts all of them, and one process writes."""
    assert world["sft"].returncode == 0, world["sft"].stderr
    torchrun = str(Path(sys.executable).parent / "torchrun")
    args = grpo_toy_args(world["cur"], world["base"], "toy-sft", "toy-two", world["runs"], 2)
    args[args.index("--prompts-per-step") + 1] = "2"
    args[args.index("grpo.micro_batch_size=32")] = "grpo.micro_batch_size=8"
    done = subprocess.run([torchrun, "--nproc_per_node", "2", "-m", "harness.train", *args[1:]],
                          capture_output=True, text=True, timeout=600, env=os.environ.copy())
    assert done.returncode == 0, done.stderr[-3000:]
    run = world["runs"] / "train" / "toy-two"
    steps = steps_of(run / "log.jsonl")
    assert [s["step"] for s in steps] == [1, 2]
    assert all(s["completions"] == 16 and sum(s["statuses"].values()) == 16 for s in steps)
    assert sorted(p.name for p in (run / "adapters").iterdir()) == ["toy-two", "toy-two@iter1", "toy-two@iter2"]
    assert harness("adapters", "verify", "toy-two@iter2").returncode == 0
