"""`harness run --agent direct --feedback self-rlef` (and `self-rlef-exec`) end to end: the
direct agent, the real sandbox, and a scripted model that answers each of the protocol's
steps by what its fresh prompt asks (solve, predict a public test's output, decide).

On sum-of-squares (public tests: zero, ten, hundred; the fourth, negative input, hidden):
- fix-submit (self-rlef): solves wrong (sum of k, not k*k), predicts its code truly (55 for
  ten), sees the predictions differ from the expected outputs and answers with the fix;
  predicts the fix truly and answers #SUBMIT: two turns, submitted by the model;
- exec (self-rlef-exec): the same model shown the public tests' real outputs instead;
- hostile: an answer naming ../escaped.h, a prediction of two megabytes, and decisions that
  are markers in the wrong shape (`#SUBMIT please`, the marker in a fence):
  nothing written outside, no prediction read, no submit, the last round submitted."""

from __future__ import annotations

import json

import jsonschema
import pytest

from harness.agents.editformat import render_whole
from harness.outcomes import load
from harness.predict.prompt import SYSTEM
from harness.predict.rlef import SUBMIT
from harness.records import RlefSteps, RoundTrajectory, TrialOutcome
from harness.report.results import build_report
from harness.run import run
from harness.run.config import RunConfig
from harness.schemas import schema
from harness.store import RunFolder
from harness.task import load_task

from tests.conftest import GOLDEN
from tests.run_support import make_suite
from tests.scripted_model import Script, ScriptedModel

pytestmark = [pytest.mark.slow, pytest.mark.docker]

TASK = load_task(GOLDEN / "sum-of-squares")
REF = {name: data.decode() for name, data in TASK.reference_files().items()}
SOLVED = render_whole(REF)
WRONG = render_whole({"sum_of_squares.cpp": REF["sum_of_squares.cpp"].replace("total += k * k;", "total += k;")})
VALUES = {True: {"zero": 0, "ten": 385, "hundred": 338350}, False: {"zero": 0, "ten": 55, "hundred": 5050}}
CASES = {"sum(0)": "zero", "sum(10)": "ten", "sum(100)": "hundred"}  # each public test by its input
DECIDE = "Decide whether your code is correct."


def honest(body: dict) -> str:
    """Solve wrong; predict the code shown truly; fix while a prediction differs from the
    expected output, else submit."""
    messages = body["messages"]
    user = messages[-1]["content"]
    if messages[0]["content"] == SYSTEM:
        case = next(short for given, short in CASES.items() if given in user)
        return f"```\n{VALUES['total += k * k;' in user][case]}\n```"
    if DECIDE in user:
        return SUBMIT if "\n    55\n" not in user and "\n    5050\n" not in user else SOLVED
    return WRONG


def hostile() -> Script:
    decisions = iter(["#SUBMIT please", f"```\n{SUBMIT}\n```"])

    def reply(body: dict) -> str:
        messages = body["messages"]
        if messages[0]["content"] == SYSTEM:
            return "```\n" + "9" * 2_000_000 + "\n```"
        if DECIDE in messages[-1]["content"]:
            return next(decisions)
        return render_whole({"../escaped.h": "int x;\n", **REF})

    return Script(by_request=reply)


def steps(run_dir, config: str, round_no: int) -> RlefSteps:
    return RlefSteps.model_validate_json(
        (run_dir / config / "sum-of-squares" / "trial-1" / f"round-{round_no}" / "self-rlef.json").read_bytes())


def trajectory(run_dir, config: str, round_no: int) -> RoundTrajectory:
    path = run_dir / config / "sum-of-squares" / "trial-1" / f"round-{round_no}" / "trajectory.json"
    return RoundTrajectory.model_validate_json(path.read_bytes())


def test_self_rlef_fresh_prompts_the_models_own_submit_and_the_public_transitions(tmp_path):
    scripts = {"fix-submit": Script(by_request=honest), "exec": Script(by_request=honest),
               "hostile": hostile()}
    runs = tmp_path / "runs"
    suite = str(make_suite(tmp_path))
    with ScriptedModel(scripts) as model:
        def config(run_id: str, names: list[str], feedback: str, rounds: int) -> RunConfig:
            return RunConfig(suite=suite, models=[f"openai/{n}@{model.api_base}" for n in names], trials=1,
                             rounds=rounds, workers=3, agent="direct", runs_dir=runs, run_id=run_id, feedback=feedback)

        run(config("sim", ["fix-submit", "hostile"], "self-rlef", 3))
        run(config("exec", ["exec"], "self-rlef-exec", 3))
        requests = {name: [r["messages"] for r in model.requests[name]] for name in scripts}

    sim, exe = RunFolder(runs / "sim"), RunFolder(runs / "exec")
    r = sim.read_result("openai-fix-submit", "sum-of-squares", 1)
    assert (r.outcome, r.passed_round, r.submitted_round, len(r.rounds)) == (TrialOutcome.passed, 2, 2, 2)
    one, two = r.rounds[0].self_rlef, r.rounds[1].self_rlef
    assert one.public == {"sum of nothing is zero": True, "sum of the first ten": False, "sum of the first hundred": False}
    assert two.public_passed and (one.decision, two.decision) == ("fix", "submit")
    assert [c.predicted for c in one.shown.cases] == [{"o": [{"v": v}]} for v in (0, 55, 5050)]

    # One fresh prompt per step, in order: solve; three predictions; decide (the fix);
    # three predictions; decide (#SUBMIT). No request carries another step's conversation.
    sent = requests["fix-submit"]
    assert [len(m) for m in sent] == [2] * 9 and all(m[-1]["role"] == "user" for m in sent)
    kinds = ["simulate" if m[0]["content"] == SYSTEM else "decide" if DECIDE in m[-1]["content"] else "solve"
             for m in sent]
    assert kinds == ["solve", *["simulate"] * 3, "decide", *["simulate"] * 3, "decide"]
    for m in sent:
        assert "negative input is rejected" not in m[-1]["content"] and "sum(-1)" not in m[-1]["content"]  # hidden
    for m in (m for m, k in zip(sent, kinds) if k == "simulate"):
        # The simulation sees its code and the test's input, never the expected output.
        assert "OBSERVE(sum_of_squares::sum(" in m[-1]["content"]
        assert "385" not in m[-1]["content"] and "338350" not in m[-1]["content"] and "sum of the" not in m[-1]["content"]
    decide = sent[4][-1]["content"]
    assert decide.startswith(trajectory(runs / "sim", "openai-fix-submit", 1).message.strip())  # the question
    assert "PUBLIC TEST 2:\n" in decide and "sum of the first ten" not in decide
    assert "  expected output:\n    385\n" in decide
    assert "  predicted output of your code:\n    55\n" in decide and "total += k;" in decide  # the code listed

    # The trial log: each step's request and answer, and the model's own submit.
    s1, s2 = steps(runs / "sim", "openai-fix-submit", 1), steps(runs / "sim", "openai-fix-submit", 2)
    assert [c.request for c in s1.simulate] == sent[1:4] and s1.decide.request == sent[4] and s1.decision == "fix"
    assert trajectory(runs / "sim", "openai-fix-submit", 2).calls[0].request == sent[4]
    assert (s2.decide.request, s2.decide.response, s2.decision) == (sent[8], SUBMIT, "submit")
    assert not (sim.trial_dir("openai-fix-submit", "sum-of-squares", 1) / "round-3").exists()

    # The execution oracle: no prediction asked, the public tests' real outputs shown.
    e = exe.read_result("openai-exec", "sum-of-squares", 1)
    assert (e.outcome, e.submitted_round, [x.self_rlef.decision for x in e.rounds]) == (TrialOutcome.passed, 2, ["fix", "submit"])
    assert not any(m[0]["content"] == SYSTEM for m in requests["exec"]) and len(requests["exec"]) == 3
    shown = requests["exec"][1][-1]["content"]
    assert "  output of your code:\n    55\n" in shown and "sum(-1)" not in shown
    assert steps(runs / "exec", "openai-exec", 1).simulate == []

    # The hostile model: nothing escapes, no prediction read, no marker taken for a submit.
    h = sim.read_result("openai-hostile", "sum-of-squares", 1)
    assert (h.outcome, h.submitted_round, h.infra_error) == (TrialOutcome.failed, 3, None)
    assert not (tmp_path / "escaped.h").exists() and not (runs / "sim" / "openai-hostile" / "sum-of-squares" / "escaped.h").exists()
    assert all(c.predicted is None for x in h.rounds[:2] for c in x.self_rlef.shown.cases)
    assert [x.self_rlef.decision for x in h.rounds] == ["fix", "fix", None]
    assert [x.counters.malformed_responses for x in h.rounds] == [1, 0, 1]  # the escape refused whole; no file; a nameless block
    assert "'../escaped.h'" in trajectory(runs / "sim", "openai-hostile", 1).notes[0]

    # Every file written follows its schema (`harness schema self-rlef`, `result`).
    for name, pattern in (("self-rlef", "*/*/trial-*/round-*/self-rlef.json"), ("result", "*/*/trial-*/result.json")):
        for path in [*(runs / "sim").glob(pattern), *(runs / "exec").glob(pattern)]:
            jsonschema.validate(json.loads(path.read_text()), schema(name))

    doc = build_report(load([("auto", str(runs / "sim")), ("auto", str(runs / "exec"))]))
    table = next(t for t in doc.tables if t.title.startswith("Self-RLEF: public tests"))
    assert {row[0]: row[1:3] + row[5:] for row in table.rows} == {
        "openai-fix-submit": ["self-rlef", "1", "2.00", "1", "2", "0", "1", "0"],
        "openai-exec": ["self-rlef-exec", "1", "2.00", "1", "2", "0", "1", "0"],
        "openai-hostile": ["self-rlef", "1", "3.00", "0", "0", "0", "0", "3"],
    }
    assert {row[0]: row[3] for row in table.rows}["openai-fix-submit"] == "100.0%"
    assert json.loads(json.dumps(doc.data))["self_rlef"][0]["fail_pass"] == 2
