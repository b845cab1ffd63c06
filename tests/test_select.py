"""best@k (`harness select`) on a run whose answers are known: space-age with three
first-round answers, the reference (passes), the earth-year-of-365-days control with a
comment added (fails, longest code, shortest response) and a short answer with the wrong
year length (fails, shortest code). Each estimator over them is worked out by hand; exec
runs the public tests in the real Docker sandbox, simulate asks a scripted judge whose
predictions are chosen per candidate, and no request it gets holds what a case expects.
Public cases and their calls are checked on fixed26 tasks; bad input exits 2."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from harness.predict.prompt import render_answer
from harness.records import ModelCall, RoundTrajectory
from harness.predict.public import DEFAULT_PUBLIC, public_cases
from harness.languages.cpp.probe.cases import task_cases
from harness.predict.select import SelectConfig, SelectionRecord, select, selection_file
from harness.task import load_task
from harness.fs import write_record

from tests.conftest import ROOT
from tests.report_support import write_run
from tests.scripted_model import Script, ScriptedModel

FIXED26 = ROOT / "suites" / "fixed26"
SPACE = load_task(FIXED26 / "space-age")
PHONE = load_task(FIXED26 / "phone-number")
YEAR = 31557600.0


def _answers() -> list[dict[str, bytes]]:
    reference = SPACE.reference_files()
    control = {p.name: p.read_bytes() for p in (SPACE.path / ".meta" / "faulty" / "earth-year-of-365-days").iterdir()}
    control["space_age.cpp"] = b"// my answer, with a long comment to make it the longest one\n" + control["space_age.cpp"]
    short = dict(reference)
    short["space_age.cpp"] = (short["space_age.cpp"].replace(b"// Each planet's orbital period, in Earth years.\n", b"")
                              .replace(b"31557600.0", b"3e7"))
    return [reference, control, short]


# Characters of each trial's round-1 response (short1@k measures these, not the code).
RESPONSES = {"space-age": (50, 10, 30), "phone-number": (20, 40, 60)}


def _trajectory(chars: int, with_calls: bool) -> RoundTrajectory:
    """A round-1 trajectory whose model said `chars` characters: in its edit calls (a
    reflection is one more; a history summary and the final answer do not count) or, with no
    call recorded, in its final answer."""
    if not with_calls:
        return RoundTrajectory(round=1, message="m", sent_at="t", response="y" * chars)
    edit = ModelCall(started_at="t", finished_at="t", seconds=0.0, response="x" * (chars - 4))
    reflection = edit.model_copy(update={"response": "x" * 4})
    summary = edit.model_copy(update={"purpose": "summarize", "response": "z" * 500})
    return RoundTrajectory(round=1, message="m", sent_at="t", calls=[edit, reflection, summary], response="y" * 1000)


def _run(tmp_path: Path, tasks=("space-age",), api_base: str | None = None, hashes: bool = True) -> Path:
    """Trials 1..3 of each task: passed, failed, failed, with the answers above as round 1
    (phone-number's are its reference three times, lengths apart by a trailing newline)."""
    runs = tmp_path / "runs"
    run = write_run(runs, "r1", {"m": {t: [1, None, None] for t in tasks}}, rounds=1,
                    configs={"m": {"api_base": api_base}},
                    task_hashes={t: load_task(FIXED26 / t).content_hash if hashes else "0" * 64 for t in tasks})
    for task in tasks:
        answers = _answers() if task == "space-age" else [
            {**PHONE.reference_files(), "phone_number.cpp": PHONE.reference_files()["phone_number.cpp"] + b"\n" * n}
            for n in (2, 0, 1)]
        for trial, files in enumerate(answers, start=1):
            ws = run / "m" / task / f"trial-{trial}" / "round-1" / "workspace"
            ws.mkdir(parents=True)
            for name, body in files.items():
                (ws / name).write_bytes(body)
            write_record(ws.parent / "trajectory.json", _trajectory(RESPONSES[task][trial - 1], task == "space-age"))
    return runs


def _selection(record: SelectionRecord, task: str):
    return next(s for s in record.selections if s.task == task)


def test_public_cases_are_asked_as_the_test_cases_themselves():
    assert [c.name for c in public_cases(SPACE)] == ["age in seconds", "age on Earth", "age on Mercury"]
    mercury = public_cases(SPACE)[2]
    assert mercury.call.startswith('TEST_CASE("age on Mercury", "[ca20c4e9-6054-458c-9312-79679ffab40b]") {')
    assert "REQUIRE_THAT(age.on_mercury(), WithinAbs(280.88, tolerance));" in mercury.call and mercury.call.endswith("}")
    assert len(task_cases(SPACE)) == 9


def test_at_most_three_cases_are_public_the_most_shown_first():
    # allergies' instructions name every allergen and all-your-base's the base 10: most of
    # their cases use only literals the instructions hold; three are public, those with
    # the most such literals first, in file order.
    allergies = public_cases(load_task(FIXED26 / "allergies"))
    assert len(allergies) == DEFAULT_PUBLIC == 3
    assert [c.name for c in allergies] == [
        "testing for shellfish allergy -> allergic to something, but not shellfish",
        "testing for strawberries allergy -> allergic to strawberries and something else",
        "testing for tomatoes allergy -> allergic only to tomatoes"]
    assert [c.name for c in public_cases(load_task(FIXED26 / "all-your-base"))] == [
        "single bit one to decimal", "binary to single decimal", "single decimal to binary"]


def test_public_file_declares_the_cases(tmp_path):
    import shutil

    task_dir = tmp_path / "space-age"
    shutil.copytree(SPACE.path, task_dir)
    (task_dir / ".meta" / "public.toml").write_text('cases = ["age on Mars"]\n')
    assert [c.name for c in public_cases(load_task(task_dir))] == ["age on Mars"]
    (task_dir / ".meta" / "public.toml").write_text('cases = ["age on Pluto"]\n')
    with pytest.raises(Exception, match="'age on Pluto' is not a test case"):
        public_cases(load_task(task_dir))


def test_shortest_and_random_need_no_sandbox(tmp_path):
    runs = _run(tmp_path, tasks=("phone-number", "space-age"))
    path, record = select(SelectConfig(run="r1", runs_dir=runs, k=3, by=["shortest", "random"], seed=3))
    assert path.name == selection_file(3) and SelectionRecord.model_validate_json(path.read_text()) == record
    space = _selection(record, "space-age")
    # The shortest response is trial 2's (10 characters in its edit calls), though trial 3
    # has the shortest code.
    assert [c.response_chars for c in space.candidates] == [50, 10, 30]
    assert min(space.candidates, key=lambda c: c.chars).trial == 3
    assert space.scores["shortest"] == {1: -50.0, 2: -10.0, 3: -30.0}
    # All three answers seen: short1@3 submits trial 2 (fails); random@3 is any of them.
    assert space.figures == {"pass@1": pytest.approx(1 / 3), "pass@k": 1.0, "short1@k": 0.0,
                             "random@k": pytest.approx(1 / 3)}
    assert _selection(record, "phone-number").figures["short1@k"] == 1.0
    figures = record.summary[0].figures
    # phone-number's shortest response is trial 1's, its one pass.
    assert figures["pass@1"].value == pytest.approx(1 / 3) and figures["pass@k"].value == 1.0
    assert figures["short1@k"].value == 0.5 and figures["random@k"].value == pytest.approx(1 / 3)
    assert figures["pass@1"].low <= figures["pass@1"].value <= figures["pass@1"].high
    # Two of three: every pair holds trial 2 or 3 and none holds a shorter passing answer.
    path, record = select(SelectConfig(run="r1", runs_dir=runs, k=2, n=3, by=["shortest", "random"]))
    assert path.name == "selection-k2-n3.json"
    assert _selection(record, "space-age").figures == {
        "pass@1": pytest.approx(1 / 3), "pass@k": pytest.approx(2 / 3), "short1@k": 0.0, "random@k": pytest.approx(1 / 3)}


def _truth_answers() -> list[str]:
    earth = 1000000000 / YEAR
    mercury = 2134835688 / YEAR
    return [render_answer({"o": [{"v": 1000000}]}), render_answer({"o": [{"v": earth}]}),
            render_answer({"o": [{"v": mercury}, {"v": mercury / 0.2408467}]})]


# What each space-age public case expects, as its test file writes it, and its name: none
# may reach the judge (the values under test, and the inputs, may).
HIDDEN = ["age in seconds", "age on Earth", "age on Mercury", "WithinAbs", "31.69", "67.65", "280.88", "tolerance",
          "REQUIRE", "=="]


@pytest.mark.slow
def test_exec_and_simulate_rank_as_worked_out(tmp_path, docker_sandbox):
    # The judge is asked per candidate (trials 1, 2, 3), per public case in order. It is made
    # wrong about the reference (trial 1), unreadable on the control (trial 2) and right
    # about what the reference does on the short wrong answer (trial 3): simulate ranks 3 first.
    wrong = ["```\n7\n```", "```\n1.5\n```", "```\n1.5\n2.5\n```"]
    unreadable = ["no idea"] * 3
    right = [f"```\n{a}\n```" for a in _truth_answers()]
    with ScriptedModel({"judge": Script(replies=wrong + unreadable + right)}) as judge:
        runs = _run(tmp_path, api_base=judge.api_base)
        _, record = select(SelectConfig(run="r1", runs_dir=runs, k=3, by=["exec", "simulate", "shortest", "random"],
                                        judge_model="openai/judge", workers=1), sandbox=docker_sandbox)
        assert len(judge.requests["judge"]) == 9
        mercury = judge.last_user_message("judge", 2)
        assert "OBSERVE(age.on_earth());\n    OBSERVE(age.on_mercury());" in mercury
        assert "const space_age::space_age age(2134835688);" in mercury
        for i in range(9):
            asked = judge.last_user_message("judge", i)
            assert not [h for h in HIDDEN if h in asked], asked
    space = _selection(record, "space-age")
    # exec: the reference passes all three public cases, the others only "age in seconds".
    assert space.scores["exec"] == {1: 3.0, 2: 1.0, 3: 1.0} and space.figures["best@k exec"] == 1.0
    assert space.scores["simulate"] == {1: 0.0, 2: 0.0, 3: 3.0} and space.figures["rank_score@k simulate"] == 0.0
    assert space.simulated == ["age in seconds", "age on Earth", "age on Mercury"]
    assert space.unreadable == {1: 0, 2: 3, 3: 0}
    figures = record.summary[0].figures
    assert figures["best@k exec"].value == 1.0 and figures["rank_score@k simulate"].value == 0.0
    assert figures["gap exec-simulate"].value == 1.0
    assert record.judge_model == "openai/judge"


def _cli(tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([str(Path(sys.executable).with_name("harness")), "select", *args],
                          capture_output=True, text=True, cwd=ROOT)


@pytest.mark.parametrize("extra, message", [
    (["--k", "4"], "--k 4: run r1 has 3 trials per task"),
    (["--k", "0"], "--k"),
    (["--k", "2", "--by", "vote"], "--by"),
    (["--k", "2", "--by", "simulate"], "give the judge's with --api-base"),
    (["--k", "3", "--n", "2"], "--k 3 is more than --n 2"),
])
def test_bad_input_is_one_line_and_exit_2(tmp_path, extra, message):
    runs = _run(tmp_path)
    got = _cli(tmp_path, "r1", "--runs-dir", str(runs), *extra)
    assert got.returncode == 2, got.stderr
    assert message in got.stderr and len(got.stderr.strip().splitlines()) == 1, got.stderr


def test_exec_on_a_changed_task_is_refused(tmp_path):
    got = _cli(tmp_path, "r1", "--runs-dir", str(_run(tmp_path, hashes=False)), "--k", "3", "--by", "exec")
    assert got.returncode == 2 and "space-age: the task has changed since run r1" in got.stderr, got.stderr


def test_cli_prints_the_table(tmp_path):
    runs = _run(tmp_path)
    got = _cli(tmp_path, "r1", "--runs-dir", str(runs), "--k", "3", "--by", "shortest,random")
    assert got.returncode == 0, got.stderr
    assert "short1@k" in got.stdout and "pass@k" in got.stdout and selection_file(3) in got.stdout.replace("\n", "")
