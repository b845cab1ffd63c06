"""GRPO's repair reward on Python, through the reward function TRL calls (GrpoReward over the
repair judge and the sandbox verifier, named by its old name `cpp` and its new `sandbox`),
in Docker: a Python repair task (the tally exercise, starting from a failed attempt) earns +1
for the reference, what its checks give a wrong answer, -1 for a module that does not
import, and -1 `malformed` for an answer that writes conftest.py or outside its folder, both
for a task judged by its verifier.toml's calls and for one judged by its own tests."""

from __future__ import annotations

import shutil

import pytest

from harness.agents.editformat import render_whole
from harness.train.config import RuntimeSettings
from harness.train.rewards import GrpoReward, RepairJudge, SandboxVerifier, make_verifier

from ..languages.python.tally import REFERENCE, SOLUTION, WRONG, write_tally
from ..languages.python.verifier_task import write_verified_tally

pytestmark = [pytest.mark.slow, pytest.mark.docker]

ANSWERS = [render_whole({SOLUTION: REFERENCE}), render_whole({SOLUTION: WRONG}), render_whole({SOLUTION: "def add(:\n"}),
           render_whole({SOLUTION: REFERENCE, "conftest.py": "import pytest\n"}),
           render_whole({SOLUTION: REFERENCE, "../../../../x.py": "owned"})]


def _repair_task(task) -> str:
    """The task as a repair exercise: its starting file the failed attempt, not the stub."""
    (task.path / SOLUTION).write_text(WRONG)
    return str(task.path)


@pytest.mark.parametrize("name", ["cpp", "sandbox"])
def test_python_repair_answers_are_rewarded_by_the_sandbox_verifier(tmp_path, name):
    calls = _repair_task(write_verified_tally(tmp_path / "calls"))
    tests = _repair_task(write_tally(tmp_path / "tests"))
    runtime = RuntimeSettings(verifier=name, sandbox="docker", verify_workers=2)
    verifier = make_verifier(runtime)
    assert isinstance(verifier, SandboxVerifier)
    reward = GrpoReward({"repair": RepairJudge(verifier)})
    try:
        got = reward(prompts=[""] * 10, completions=ANSWERS * 2, environment=["repair"] * 10,
                     target=[calls] * 5 + [tests] * 5)
        statuses = reward.take_stats().statuses
    finally:
        reward.close()
        shutil.rmtree(tmp_path, ignore_errors=True)
    assert [round(r, 4) for r in got] == [1.0, 0.5, -1.0, -1.0, -1.0, 1.0, round(1 / 3, 4), -1.0, -1.0, -1.0]
    assert statuses == {"ok": 4, "compile_error": 2, "malformed": 4}
