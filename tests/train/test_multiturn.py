"""The two-turn environment's feedback (train/multiturn.py): first answers to phone-number
run its public tests for real in Docker, and the second turn's message holds their results;
an answer that passed them all gets no second turn."""

from __future__ import annotations

from harness.agents.editformat import render_whole
from harness.predict.public import public_cases
from harness.task import load_task
from harness.train.config import RuntimeSettings
from harness.train.multiturn import PublicTests

from tests.conftest import ROOT

TASK = ROOT / "suites" / "fixed26" / "phone-number"


def test_first_answers_get_their_public_tests_results_as_the_second_turn(docker_sandbox):
    task = load_task(TASK)
    reference = {k: v.decode() for k, v in task.reference_files().items()}
    broken = {**reference, "phone_number.cpp": reference["phone_number.cpp"].replace("return digits_;",
                                                                                    'return digits_ + "0";')}
    answers = [render_whole(reference), render_whole(broken), "I would rather not.", render_whole(reference)]
    got = PublicTests(RuntimeSettings(sandbox="docker")).feedback(answers, [str(TASK)] * 4)
    public = [c.name for c in public_cases(task)]
    assert got[0] is None and got[3] is None          # passed every public test: the exchange ends
    assert got[1] is not None and all(f"FAIL: {name}" in got[1] for name in public), got[1]
    assert "Fix the code." in got[1]
    # An answer that writes no file leaves the stub, which does not build: nothing ran, and why.
    assert got[2] is not None and "No test ran (error)" in got[2], got[2]
    print(got[1])
