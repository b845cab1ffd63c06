"""GRPO wired to the real C++ verifier: a tiny model, briefly taught to open a whole-file
listing of phone-number's files, samples 2 prompts x 4 answers for 2 updates; every
answer is built in the Docker sandbox, none compiles (a random model writes garbage), so
every reward is -1 and the log carries the verifier's statuses."""

from __future__ import annotations

import pytest

from tests.conftest import ROOT
from tests.train_support import CPU, harness, private_state, steps_of, write_cpp_curriculum

pytestmark = [pytest.mark.slow, pytest.mark.docker]

VERIFIER_STATUSES = {"ok", "compile_error", "timeout", "crash", "forged", "incomplete", "malformed"}


@pytest.fixture(scope="module")
def curriculum(tmp_path_factory):
    return write_cpp_curriculum(tmp_path_factory.mktemp("cpp-curriculum"), ROOT / "suites" / "fixed26" / "phone-number")


@pytest.fixture(scope="module")
def state(tmp_path_factory):
    with private_state(tmp_path_factory.mktemp("state")) as path:
        yield path


def test_grpo_with_the_cpp_verifier_scores_garbage_minus_one_with_statuses(docker_sandbox, curriculum, state, tmp_path):
    from tests.tinymodel import build_tiny_model

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


def test_the_same_reward_path_gives_the_reference_plus_one(docker_sandbox, curriculum):
    """The -1s above are the answers' doing: through the very verifier GRPO calls, the
    curriculum task's reference earns +1 and its stub -1."""
    from harness.task import load_task
    from harness.train.config import RuntimeSettings
    from harness.train.rewards import Candidate, SandboxVerifier

    task = load_task(curriculum / "phone-number")
    ref = {k: v.decode() for k, v in task.reference_files().items()}
    stub = {k: v.decode() for k, v in task.stub_files().items()}
    verifier = SandboxVerifier(RuntimeSettings(sandbox="docker"))
    try:
        got = verifier.verify_batch([Candidate(str(task.path), ref), Candidate(str(task.path), stub)])
    finally:
        verifier.close()  # its slots' containers, as the trainer closes its reward
    assert (got[0].reward, got[0].status) == (1.0, "ok")
    assert (got[1].reward, got[1].status) == (-1.0, "compile_error")
