"""The aider-polyglot profile and contract: Aider's benchmark prompts read as data from a
checkout (here a prompts.py the test writes itself, never Aider's own file), filled in as
Aider's benchmark fills them, and a whole run through the real Aider driver with
auto-lint and chat-history summaries as Aider's benchmark leaves them."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from harness.agents.aider.checkout import read_prompts
from harness.contract import AIDER_TIMEOUT_TEXT, load_contract
from harness.errors import BadInput
from harness.agents.editformat import render_whole as whole_answer
from harness.records import ModelCall, RoundTrajectory, RunManifest, Status, TestReport, TrialOutcome, TrialResult
from harness.run import run
from harness.run.config import RunConfig
from harness.task import load_task

from tests.conftest import GOLDEN, ROOT
from tests.scripted_model import Script, ScriptedModel

# Our own wording, shaped like Aider's file: two module-level strings with {file_list}.
ADDENDUM = "\n####\n\nEdit only these files: {file_list}\nKeep every name the tests call.\n"
FAILURES = "\n####\n\nThe tests above failed.\nRepair {file_list} so that they pass.\n"
PROMPTS = f'"""Prompts for the test."""\n\ninstructions_addendum = {ADDENDUM!r}  # noqa: E501\n\n\ntest_failures = {FAILURES!r}\n'


def checkout(tmp_path: Path, text: str = PROMPTS) -> Path:
    root = tmp_path / "aider-checkout"
    (root / "benchmark").mkdir(parents=True, exist_ok=True)
    (root / "benchmark" / "prompts.py").write_text(text)
    return root


def task_with_docs(tmp_path: Path) -> Path:
    """sum-of-squares with an introduction and an appendix, none ending in a newline the
    way Aider would re-add it."""
    path = tmp_path / "suite" / "sum-of-squares"
    shutil.copytree(GOLDEN / "sum-of-squares", path)
    (path / ".docs").mkdir(exist_ok=True)
    (path / ".docs" / "introduction.md").write_text("# Intro\n\nSquares add up.  \n\n")
    (path / ".docs" / "instructions.md").write_text("# Instructions\n\nSum the squares of 1..n.\n")
    (path / ".docs" / "instructions.append.md").write_text("\n## Append\nNo overflow below 1000.")
    return path


def test_prompts_are_read_as_data_and_never_run(tmp_path):
    marker = tmp_path / "ran"
    text = f"import pathlib\npathlib.Path({str(marker)!r}).write_text('x')\n" + PROMPTS
    prompts = read_prompts(checkout(tmp_path, text))
    assert not marker.exists()
    assert (prompts.instructions_addendum, prompts.test_failures) == (ADDENDUM, FAILURES)
    assert prompts.path.endswith("benchmark/prompts.py") and len(prompts.sha256) == 64


@pytest.mark.parametrize("text, expect", [
    ("instructions_addendum = 'a {file_list}'\n", "no string assigned to test_failures"),
    ("import os\ninstructions_addendum = os.environ['X']\ntest_failures = 'b'\n", "not a plain string literal"),
    ("instructions_addendum = f'{1}'\ntest_failures = 'b'\n", "not a plain string literal"),
    ("instructions_addendum = 'a\n", "not readable as Python"),
])
def test_unusable_prompt_files_are_refused_with_the_reason(tmp_path, text, expect):
    with pytest.raises(BadInput, match=expect):
        read_prompts(checkout(tmp_path, text))
    with pytest.raises(BadInput, match="not an Aider checkout"):
        read_prompts(tmp_path / "nowhere")


def test_messages_are_filled_in_as_aiders_benchmark_fills_them(tmp_path):
    task = load_task(task_with_docs(tmp_path))
    contract = load_contract("aider-polyglot").with_checkout_texts(checkout(tmp_path))
    docs = task.path / ".docs"
    raw = "".join((docs / n).read_text() for n in ("introduction.md", "instructions.md", "instructions.append.md"))
    names = "sum_of_squares.cpp sum_of_squares.h"
    assert contract.first_message(task) == raw + ADDENDUM.format(file_list=names)

    transcript = "[ 50%] Building CXX object\nsum-of-squares/x.cpp:3:1: error: ‘y’ was not declared\n" \
                 "test cases: 4 | 3 passed | 1 failed in 0.25s\n\n" + "x" * 20000 + "\n"
    report = TestReport(status=Status.failed, transcript=transcript, message="ignored")
    cleaned = transcript.replace("in 0.25s", "").rstrip("\n")  # Aider keeps the space before it
    assert contract.feedback_message(task, report) == cleaned + FAILURES.format(file_list=names)
    timed_out = TestReport(status=Status.error, timeout=True, transcript="partial build output")
    assert contract.feedback_message(task, timed_out) == AIDER_TIMEOUT_TEXT + FAILURES.format(file_list=names)


def test_the_profile_without_a_checkout_is_one_line_and_exit_2(tmp_path, monkeypatch):
    monkeypatch.delenv("HARNESS_AIDER_CHECKOUT", raising=False)
    cmd = [str(ROOT / ".venv" / "bin" / "harness"), "run", "--agent", "aider-polyglot", "--model", "gold",
           "--tasks", "phone-number", "--dry-run", "--runs-dir", str(tmp_path / "runs")]
    result = subprocess.run(cmd, capture_output=True, text=True)
    lines = result.stderr.strip().splitlines()
    assert result.returncode == 2 and len(lines) == 1, result.stderr
    assert "--aider-checkout" in lines[0] and "HARNESS_AIDER_CHECKOUT" in lines[0]
    given = subprocess.run(cmd, capture_output=True, text=True,
                           env=dict(os.environ, HARNESS_AIDER_CHECKOUT=str(checkout(tmp_path))))
    assert given.returncode == 0 and "4 trial(s) to run" in given.stdout, given.stderr


# --- a run through the real Aider driver and the sandbox --------------------------------

TASK = load_task(GOLDEN / "sum-of-squares")
REF = {name: data.decode() for name, data in TASK.reference_files().items()}
# A class with an access specifier: Aider's linter parses a .h as C and flags it, as it
# flags most C++ headers of the polyglot exercises.
REF["sum_of_squares.h"] = REF["sum_of_squares.h"].replace(
    "long long sum(int n);", "long long sum(int n);\n\nclass tally {\n   public:\n    long long value() const;\n};")
# Both files, the .cpp naming what nothing declares: it parses, and does not compile.
BROKEN = whole_answer({**REF, "sum_of_squares.cpp": REF["sum_of_squares.cpp"] + "\nint extra() { return undeclared_name; }\n"})
# The fix keeps a helper header the model made, which the .cpp includes.
HELPER = {"helper.h": "#pragma once\ninline long long square(int k) { return 1LL * k * k; }\n"}
FIXED = whole_answer({**REF, **HELPER, "sum_of_squares.cpp": '#include "helper.h"\n' + REF["sum_of_squares.cpp"]})


@pytest.mark.slow
@pytest.mark.docker
def test_a_run_lints_summarizes_and_feeds_back_as_aiders_benchmark(tmp_path):
    suite = tmp_path / "suite"
    shutil.copytree(GOLDEN / "sum-of-squares", suite / "sum-of-squares")
    (suite / "suite.toml").write_text('name = "mini"\nversion = "0.1"\nlanguage = "cpp"\nimage = "harness-cpp"\n'
                                      'tasks = ["sum-of-squares"]\n')
    runs = tmp_path / "runs"
    # Auto-lint: every edit of the header draws Aider's three "# Fix any errors below"
    # follow-ups (its reflection limit), answered with the same files again.
    with ScriptedModel({"polyglot": Script([BROKEN] * 4, then=FIXED)}) as model:
        summary = run(RunConfig(suite=str(suite), models=["openai/polyglot"], api_base=model.api_base, trials=1,
                                workers=1, agent="aider-polyglot", aider_checkout=checkout(tmp_path), runs_dir=runs,
                                run_id="polyglot"))
        summaries = len(model.summaries)
    trial = runs / "polyglot" / summary.configs[0].config / "sum-of-squares" / "trial-1"
    result = TrialResult.model_validate_json((trial / "result.json").read_bytes())
    assert result.outcome is TrialOutcome.passed and result.passed_round == 2
    assert result.rounds[1].created_files == ["helper.h"] and result.rounds[0].created_files == []

    r1, r2 = (RoundTrajectory.model_validate_json((trial / f"round-{n}" / "trajectory.json").read_bytes()) for n in (1, 2))
    last_user = lambda call: next(m["content"] for m in reversed(call.request) if m["role"] == "user")  # noqa: E731
    for traj in (r1, r2):
        edits = [c for c in traj.calls if c.purpose == "edit"]
        assert [last_user(c).lstrip().startswith("# Fix any errors below") for c in edits] == [False, True, True, True]
    # Chat-history summaries (a 1k-token history for a model Aider has no metadata for),
    # each in the round that started it, none lost at the end of the trial.
    recorded: list[ModelCall] = [c for t in (r1, r2) for c in t.calls if c.purpose == "summarize"]
    assert summaries > 0 and len(recorded) == summaries

    assert r1.message == "".join(TASK.instruction_docs()) + ADDENDUM.format(file_list="sum_of_squares.cpp sum_of_squares.h")
    # Round 2: the compiler's own diagnostics, paths as in the exercise's checkout, uncut,
    # then the checkout's failure text; no harness configuration noise.
    assert "sum-of-squares/sum_of_squares.cpp:" in r2.message and "‘undeclared_name’ was not declared" in r2.message
    assert "make[2]: ***" in r2.message and "HARNESS_TEST_MAIN" not in r2.message and "/src/" not in r2.message
    assert r2.message.endswith(FAILURES.format(file_list="sum_of_squares.cpp sum_of_squares.h"))
    report = TestReport.model_validate_json((trial / "round-1" / "test_report.json").read_bytes())
    assert report.transcript is not None and report.transcript.rstrip("\n") in r2.message

    manifest = RunManifest.model_validate_json((runs / "polyglot" / "manifest.json").read_bytes())
    (config,) = manifest.configs
    assert config.contract == "aider-polyglot" and config.agent_profile == "aider-polyglot"
    assert config.contract_texts_file == str(checkout_prompts(tmp_path))
    assert config.contract_texts_sha256 == read_prompts(tmp_path / "aider-checkout").sha256
    contract = json.loads((runs / "polyglot" / "contract.json").read_text())
    assert contract["instructions"] == "{instructions}" + ADDENDUM


def checkout_prompts(tmp_path: Path) -> Path:
    return (tmp_path / "aider-checkout" / "benchmark" / "prompts.py").resolve()
