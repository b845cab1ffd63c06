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
  nothing written outside, no prediction read, no submit, the last round submitted.

On tally, a Python task (public tests: its three, named by pytest's node ids), the same
protocol in Python's terms: the predictions asked in Python's prompt and read as Python
literals, the wrong answer's `['a', 'b', '', 'c']` predicted, the fix, then #SUBMIT; and under
self-rlef-exec the public calls run alone on the candidate's code."""

from __future__ import annotations

import json

import jsonschema
import pytest

from harness.agents.editformat import render_whole
from harness.languages.python.probe.prediction import SYSTEM as PY_SYSTEM
from harness.outcomes import load
from harness.predict.prompt import SYSTEM
from harness.predict.rlef import SUBMIT
from harness.records import RlefSteps, RoundTrajectory, TrialOutcome
from harness.report.results import build_report
from harness.run import run
from harness.run.config import RunConfig
from harness.schemas import schema
from harness.sandbox.image import image_repo
from harness.store import RunFolder
from harness.suite import MANIFEST, SuiteManifest, render_manifest
from harness.task import load_task

from tests.conftest import GOLDEN
from tests.languages.python import tally
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


def steps(run_dir, config: str, round_no: int, slug: str = "sum-of-squares") -> RlefSteps:
    return RlefSteps.model_validate_json(
        (run_dir / config / slug / "trial-1" / f"round-{round_no}" / "self-rlef.json").read_bytes())


def trajectory(run_dir, config: str, round_no: int, slug: str = "sum-of-squares") -> RoundTrajectory:
    path = run_dir / config / slug / "trial-1" / f"round-{round_no}" / "trajectory.json"
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


PY_WRONG, PY_SOLVED = render_whole({tally.SOLUTION: tally.WRONG}), render_whole({tally.SOLUTION: tally.REFERENCE})
PY_VALUES = {"add(2, 3)": "5", "words('a b  c')": "['a', 'b', 'c']", "Tally().count('a')": "3"}
EMPTY_WORD = "['a', 'b', '', 'c']"


def py_honest(body: dict) -> str:
    """On tally: solve wrong (the empty words kept), predict truly in Python literals, fix
    while a prediction differs from the expected output, else submit."""
    messages = body["messages"]
    user = messages[-1]["content"]
    if messages[0]["content"] == PY_SYSTEM:
        call = next(c for c in PY_VALUES if c in user)
        wrong = 'split(" ")' in user and call.startswith("words")
        return f"```python\n{EMPTY_WORD if wrong else PY_VALUES[call]}\n```"
    if DECIDE in user:
        return PY_SOLVED if EMPTY_WORD in user else SUBMIT
    return PY_WRONG


def test_self_rlef_on_a_python_task_in_pythons_terms(tmp_path):
    suite = tmp_path / "pysuite"
    tally.write_tally(suite)
    (suite / MANIFEST).write_text(render_manifest(SuiteManifest(
        name="pysuite", version="1", language="python", image=image_repo("python"), description="", tasks=["tally"])))
    runs = tmp_path / "runs"
    with ScriptedModel({"py": Script(by_request=py_honest), "pyexec": Script(by_request=py_honest)}) as model:
        for run_id, name, feedback in (("sim", "py", "self-rlef"), ("exec", "pyexec", "self-rlef-exec")):
            run(RunConfig(suite=str(suite), models=[f"openai/{name}@{model.api_base}"], trials=1, rounds=3, workers=1,
                          agent="direct", runs_dir=runs, run_id=run_id, feedback=feedback))
        sent = [r["messages"] for r in model.requests["py"]]
        exec_sent = [r["messages"] for r in model.requests["pyexec"]]

    r = RunFolder(runs / "sim").read_result("openai-py", "tally", 1)
    assert (r.outcome, r.passed_round, r.submitted_round, len(r.rounds)) == (TrialOutcome.passed, 2, 2, 2)
    one, two = r.rounds[0].self_rlef, r.rounds[1].self_rlef
    assert one.public == {name: name != "tally_test.py::test_words" for name in tally.CASES}
    assert two.public_passed and (one.decision, two.decision) == ("fix", "submit")
    assert [c.predicted for c in one.shown.cases] == [{"o": [{"v": 5}]}, {"o": [{"v": ["a", "b", "", "c"]}]},
                                                      {"o": [{"v": 3}]}]
    # Fresh prompts: solve; three predictions in Python's prompt, shown the calls without
    # their expected values; decide (the fix); three predictions; decide (#SUBMIT).
    kinds = ["simulate" if m[0]["content"] == PY_SYSTEM else "decide" if DECIDE in m[-1]["content"] else "solve"
             for m in sent]
    assert kinds == ["solve", *["simulate"] * 3, "decide", *["simulate"] * 3, "decide"]
    assert all(len(m) == 2 for m in sent)
    assert "```python\nwords('a b  c')\n```" in sent[2][-1]["content"] and "['a', 'b', 'c']" not in sent[2][-1]["content"]
    decide = sent[4][-1]["content"]
    assert "PUBLIC TEST 2:\n    words('a b  c')\n  expected output:\n    ['a', 'b', 'c']\n" in decide
    assert f"  predicted output of your code:\n    {EMPTY_WORD}\n" in decide and "test_words" not in decide
    assert steps(runs / "sim", "openai-py", 2, "tally").decision == "submit"

    # The execution oracle: the public calls run alone on the candidate's code, no prediction asked.
    e = RunFolder(runs / "exec").read_result("openai-pyexec", "tally", 1)
    assert (e.outcome, e.submitted_round, [x.self_rlef.decision for x in e.rounds]) == (TrialOutcome.passed, 2, ["fix", "submit"])
    assert len(exec_sent) == 3 and not any(m[0]["content"] == PY_SYSTEM for m in exec_sent)
    assert f"  output of your code:\n    {EMPTY_WORD}\n" in exec_sent[1][-1]["content"]
