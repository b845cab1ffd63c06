"""One unit's error is that unit's result: a unit of work that raises (a bug of ours a
candidate's output found, a sandbox that died) neither ends the batch nor loses another
unit's result, in the executor, in the verifier's batches and in a GRPO step."""

from __future__ import annotations

import time

import pytest

from harness.errors import InfraError, InfraKind
from harness.executor.local import LocalExecutor
from harness.task import load_task

from ..conftest import ROOT, make_backend

PHONE = load_task(ROOT / "suites" / "fixed26" / "phone-number")


def test_a_unit_that_raises_does_not_stop_the_others_or_lose_their_results():
    box = make_backend("local")

    def work(u, slot):
        if u == 1:
            raise RecursionError("maximum recursion depth exceeded")  # what a 100,000-deep value once did
        time.sleep(0.02)
        return u * 10

    delivered, failed = {}, {}
    with LocalExecutor(box, 2) as executor:
        executor.run(list(range(8)), work, label="batch", on_result=lambda u, r: delivered.__setitem__(u, r),
                     on_failure=lambda u, f: failed.__setitem__(u, f))
    assert delivered == {u: u * 10 for u in range(8) if u != 1}
    assert failed[1].record.kind == "harness" and "RecursionError" in failed[1].record.message


@pytest.mark.slow
@pytest.mark.docker
def test_a_candidate_whose_judging_raises_gets_its_own_verdict_and_the_batch_stands(monkeypatch):
    import harness.verify as verifier

    real = verifier.verify_in_session
    poison = b"// this candidate trips a bug of the judge\n"

    def judging(task, candidate, session):
        if candidate.get("phone_number.cpp", b"").startswith(poison):
            raise OverflowError("int too large to convert to float")  # math.isclose on a 400-digit int, once
        if candidate.get("phone_number.cpp", b"").startswith(b"// the sandbox dies"):
            raise InfraError(InfraKind.sandbox, "the container died")
        return real(task, candidate, session)

    monkeypatch.setattr(verifier, "verify_in_session", judging)
    ref = PHONE.reference_files()
    bad = {p.name: p.read_bytes() for p in (PHONE.path / ".meta" / "faulty" / "keeps-country-code").iterdir()}
    items = [ref, {**ref, "phone_number.cpp": poison + ref["phone_number.cpp"]}, bad,
             {**ref, "phone_number.cpp": b"// the sandbox dies\n" + ref["phone_number.cpp"]}, ref]
    got = verifier.verify_many(PHONE, items, sandbox=make_backend("docker"), workers=1)
    assert [v.status.value for v in got] == ["ok", "error", "ok", "error", "ok"]
    assert got[0].reward == got[4].reward == 1.0 and got[2].reward < 1.0
    assert got[1].reward == got[3].reward == -1.0  # breaking the judge never earns more than being judged
    assert (got[1].infra_error.kind, got[3].infra_error.kind) == ("harness", "sandbox")


def test_a_grpo_step_goes_on_when_a_judge_raises():
    from harness.train.rewards import GrpoReward, PredictJudge

    class Broken:
        lowest = -1.0

        def judge(self, texts, targets):
            raise RecursionError("a completion no judge survived")

        def close(self):
            pass

    target = '{"call": "f()", "expected": {"o": [{"v": 1}]}, "compare": {"mode": "exact"}}'
    reward = GrpoReward({"repair": Broken(), "predict": PredictJudge()})
    try:
        got = reward(prompts=[""] * 3, completions=["x", "1", "[" * 100_000 + "]" * 100_000],
                     environment=["repair", "predict", "predict"], target=["t", target, target])
        stats = reward.take_stats()
    finally:
        reward.close()
    assert got == [-1.0, 1.0, -1.0]
    assert stats.statuses["error"] == 1 and stats.statuses["right"] == 1 and stats.statuses["malformed"] == 1
