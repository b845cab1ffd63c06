"""`harness run --feedback simulated` end to end: the real Aider driver in its own
environment, the real sandbox, and a scripted model that answers both Aider's edit requests
and its own prediction requests (what its code gives on the public tests).

Five configurations on sum-of-squares (public cases: zero, ten, hundred), each a scripted
model that predicts in its own way:
- honest-fix: a wrong round 1 it predicts truly (55 for ten) -> round 2 from the predicted
  failures, solved: fixed;
- pessimist-break: round 1 really passes, but it predicts 384 for ten -> a round 2 that
  breaks the pass: broken;
- honest-stop: round 1 passes and it predicts so -> no round 2: both pass;
- optimist-miss: a wrong round 1 it predicts to pass -> no round 2: both fail;
- flaky: the provider fails while it simulates round 1 (an infrastructure error; round 1
  is kept), then `--resume` simulates again and round 2 fixes it.
A second run with real feedback (one fix, one pass) is reported beside it: the fixed/broken
table and recovery under each, and the scope note that the configs differ in feedback."""

from __future__ import annotations

import json

import pytest

from harness.agents.editformat import render_whole as whole_answer
from harness.outcomes import load
from harness.predict.prompt import SYSTEM
from harness.records import RoundTrajectory, TrialOutcome
from harness.report.comparison import build_comparison
from harness.report.results import build_report
from harness.run import run
from harness.run.config import RunConfig
from harness.store import RunFolder
from harness.task import load_task

from tests.conftest import GOLDEN
from tests.run_support import fast_profile, make_suite
from tests.scripted_model import Script, ScriptedModel

pytestmark = [pytest.mark.slow, pytest.mark.docker]

TASK = load_task(GOLDEN / "sum-of-squares")
REF = {name: data.decode() for name, data in TASK.reference_files().items()}
SOLVED = whole_answer(REF)
WRONG = whole_answer({"sum_of_squares.cpp": REF["sum_of_squares.cpp"].replace("total += k * k;", "total += k;")})
TRUE_VALUES = {"zero": 0, "ten": 385, "hundred": 338350}
WRONG_VALUES = {"zero": 0, "ten": 55, "hundred": 5050}
# The judge is shown each public case's input, never its name or expected value.
CASES = {"OBSERVE(sum_of_squares::sum(0))": "zero", "OBSERVE(sum_of_squares::sum(10))": "ten",
         "OBSERVE(sum_of_squares::sum(100))": "hundred"}

# The round-2 message pessimist-break is sent, written out by hand: the predicted failure
# (the case as the test file writes it, the prediction, the reference's value) in the
# original contract's simulated_feedback template.
BREAK_MESSAGE = """PREDICTED TO FAIL: sum of the first ten
    TEST_CASE("sum of the first ten", "[a2]") {
        REQUIRE(sum_of_squares::sum(10) == 385);
    }
  predicted with your code:
    384
  expected:
    385
####

Those are the test cases you predicted your code fails: for each, what you predicted it gives and what the test expects.
The tests are correct; do not try to change them.
Change the code in sum_of_squares.cpp sum_of_squares.h so that it gives what the tests expect.
"""


def scripted(edits: list[str], predict, state: dict | None = None) -> Script:
    """Edit requests answered from `edits` in order; prediction requests by `predict(case,
    values of the code shown)`, or a 500 while `state["down"]` is set."""
    sent = []

    def reply(body: dict):
        messages = body["messages"]
        if messages[0]["content"] != SYSTEM:
            sent.append(1)
            return edits[min(len(sent), len(edits)) - 1]
        if state is not None and state.get("down"):
            return 500
        user = messages[-1]["content"]
        assert "385" not in user and "sum of the first" not in user
        case = next(short for call, short in CASES.items() if call in user)
        values = TRUE_VALUES if "total += k * k;" in user else WRONG_VALUES
        return f"```\n{predict(case, values)}\n```"

    return Script(by_request=reply)


def honest(case, values):
    return values[case]


def pessimist(case, values):
    return 384 if case == "ten" else values[case]


def optimist(case, values):
    return TRUE_VALUES[case]


def message(run_dir, config: str, round_no: int) -> str:
    path = run_dir / config / "sum-of-squares" / "trial-1" / f"round-{round_no}" / "trajectory.json"
    return RoundTrajectory.model_validate_json(path.read_bytes()).message


def test_simulated_feedback_through_aider(tmp_path):
    flaky = {"down": True}
    scripts = {
        "honest-fix": scripted([WRONG, SOLVED], honest),
        "pessimist-break": scripted([SOLVED, WRONG], pessimist),
        "honest-stop": scripted([SOLVED], honest),
        "optimist-miss": scripted([WRONG], optimist),
        "flaky": scripted([WRONG, SOLVED], honest, flaky),
        "real-fix": Script([WRONG, SOLVED]),
        "real-solve": Script([SOLVED]),
    }
    runs = tmp_path / "runs"
    suite, profile = str(make_suite(tmp_path)), str(fast_profile(tmp_path))
    with ScriptedModel(scripts) as model:
        def config(run_id: str, names: list[str], feedback: str) -> RunConfig:
            return RunConfig(suite=suite, models=[f"openai/{n}@{model.api_base}" for n in names], trials=1,
                             rounds=2, workers=3, agent=profile, runs_dir=runs, run_id=run_id, feedback=feedback)

        sim = ["honest-fix", "pessimist-break", "honest-stop", "optimist-miss", "flaky"]
        run(config("sim", sim, "simulated"))
        run(config("real", ["real-fix", "real-solve"], "real"))
        folder = RunFolder(runs / "sim")
        result = {n: folder.read_result(f"openai-{n}", "sum-of-squares", 1) for n in sim}

        r = result["honest-fix"]
        assert (r.outcome, r.passed_round, r.submitted_round, len(r.rounds)) == (TrialOutcome.passed, 2, 2, 2)
        assert [c.failed for c in r.rounds[0].simulation.cases] == [False, True, True]
        assert r.rounds[1].simulation is None  # the last round decides nothing
        sent = message(runs / "sim", "openai-honest-fix", 2)
        assert sent.startswith("PREDICTED TO FAIL: sum of the first ten\n") and "    55\n  expected:\n    385" in sent
        assert "PREDICTED TO FAIL: sum of the first hundred" in sent and "sum of nothing" not in sent

        # round 1 really passed; the simulation said otherwise, and round 2 broke it
        r = result["pessimist-break"]
        assert r.rounds[0].test_report.passed and not r.rounds[1].test_report.passed
        assert (r.outcome, r.passed_round, r.submitted_round) == (TrialOutcome.failed, 1, 2)
        assert message(runs / "sim", "openai-pessimist-break", 2) == BREAK_MESSAGE
        assert model.last_user_message("pessimist-break", len(model.requests["pessimist-break"]) - 1).startswith(
            BREAK_MESSAGE[:200])

        r = result["honest-stop"]
        assert (r.outcome, r.submitted_round, len(r.rounds)) == (TrialOutcome.passed, 1, 1)
        assert r.rounds[0].simulation.failures == [] and len(r.rounds[0].simulation.cases) == 3
        r = result["optimist-miss"]
        assert (r.outcome, r.submitted_round, len(r.rounds)) == (TrialOutcome.failed, 1, 1)

        # the provider failed in the simulation: an infrastructure error, round 1 kept
        r = result["flaky"]
        assert r.outcome is TrialOutcome.infra_error and r.infra_error.kind == "provider"
        assert len(r.rounds) == 1 and r.rounds[0].simulation is None and r.submitted_round is None
        flaky["down"] = False
        resumed = run(RunConfig(resume="sim", runs_dir=runs, workers=2))
        assert (resumed.ran, resumed.skipped) == (1, 4)
        r = folder.read_result("openai-flaky", "sum-of-squares", 1)
        assert (r.outcome, r.passed_round, r.submitted_round) == (TrialOutcome.passed, 2, 2)
        assert r.rounds[0].simulation.failures and "PREDICTED TO FAIL" in message(runs / "sim", "openai-flaky", 2)

    # Under real feedback nothing of simulation is written, in results or the manifest.
    real = RunFolder(runs / "real")
    raw = json.loads((real.trial_dir("openai-real-fix", "sum-of-squares", 1) / "result.json").read_text())
    assert "submitted_round" not in raw and all("simulation" not in rr for rr in raw["rounds"])
    assert "feedback" not in json.loads((runs / "real" / "manifest.json").read_text())["configs"][0]
    assert folder.read_manifest().configs[0].feedback == "simulated"

    outcomes = load([("auto", str(runs / "sim")), ("auto", str(runs / "real"))])
    doc = build_report(outcomes)
    table = next(t for t in doc.tables if t.title.startswith("Round 1 against the submitted round"))
    assert table.columns[:8] == ["config", "feedback", "trials", "both pass", "fixed (fail→pass)",
                                 "broken (pass→fail)", "both fail", "recovery"]
    assert {row[0]: row[1:] for row in table.rows} == {
        "openai-honest-fix": ["simulated", "1", "0", "1", "0", "0", "1/1 (100.0%)", "+1"],
        "openai-pessimist-break": ["simulated", "1", "0", "0", "1", "0", "0/0 (n/a)", "-1"],
        "openai-honest-stop": ["simulated", "1", "1", "0", "0", "0", "0/0 (n/a)", "+0"],
        "openai-optimist-miss": ["simulated", "1", "0", "0", "0", "1", "0/1 (0.0%)", "+0"],
        "openai-flaky": ["simulated", "1", "0", "1", "0", "0", "1/1 (100.0%)", "+1"],
        "openai-real-fix": ["real", "1", "0", "1", "0", "0", "1/1 (100.0%)", "+1"],
        "openai-real-solve": ["real", "1", "1", "0", "0", "0", "0/0 (n/a)", "+0"],
    }
    assert any(n.startswith("Not like for like: the configs differ in feedback") for n in doc.notes)
    # the headline: a broken pass is a first-round success and a two-round failure
    headline = {row[0]: row for row in doc.tables[0].rows}
    assert headline["openai-pessimist-break"][3:6] == ["1.00 (100.0%)", headline["openai-pessimist-break"][4],
                                                       "0.00 (0.0%)"]
    compared = build_comparison(outcomes, "openai-real-fix", "openai-honest-fix")
    moves = next(t for t in compared.tables if t.title.startswith("Round 1 against the submitted round"))
    assert [row[:2] for row in moves.rows] == [["openai-real-fix", "real"], ["openai-honest-fix", "simulated"]]
    assert compared.data["transitions"]["openai-honest-fix"]["fixed"] == 1
