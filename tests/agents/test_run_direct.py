"""`harness run --agent direct`: no Aider, one litellm completion per round against a
scripted OpenAI-compatible server, the real sandbox on a fixed26 task. The model fixes its
code from the test feedback; each round's request is the fresh prompt the agent promises
(the contract's system text and the answer format, the round's message, the files as they
are now); an answer that writes outside the workspace is refused whole, by the one path check."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from harness.agents.direct import ANSWER_FORMAT
from harness.agents.editformat import render_whole
from harness.contract import listing_prompt, load_contract
from harness.records import RoundTrajectory, RunManifest, TrialOutcome, TrialResult
from harness.suite import find_suite

from tests.conftest import ROOT
from tests.scripted_model import Script, ScriptedModel

pytestmark = [pytest.mark.slow, pytest.mark.docker]

TASK = find_suite("fixed26").task("clock")
STUBS = TASK.stub_files()
SOLVED = render_whole({n: d.decode() for n, d in TASK.reference_files().items()})
WRONG = {n: d.decode() for n, d in STUBS.items()}  # the starting code: it fails the tests


def _trial(runs, config: str):
    trial = runs / "direct" / config / "clock" / "trial-1"
    rounds = sorted(trial.glob("round-*/trajectory.json"))
    return (TrialResult.model_validate_json((trial / "result.json").read_bytes()),
            [RoundTrajectory.model_validate_json(p.read_bytes()) for p in rounds])


def test_the_direct_agent_fixes_a_fixed26_task_from_the_feedback_and_refuses_an_escape(tmp_path):
    outside = tmp_path / "escaped.h"
    escape = render_whole({"../escaped.h": "int x;\n", **{n: d.decode() for n, d in TASK.reference_files().items()}})
    runs = tmp_path / "runs"
    scripts = {"fix": Script([render_whole(WRONG), SOLVED]), "escape": Script([], then=escape)}
    with ScriptedModel(scripts) as model:
        cmd = [sys.executable, "-m", "harness", "run", "--agent", "direct", "--suite", "fixed26", "--tasks", "clock",
               "--model", f"openai/fix@{model.api_base}", "--model", f"openai/escape@{model.api_base}",
               "--trials", "1", "--rounds", "2", "--workers", "2", "--sandbox", "docker",
               "--runs-dir", str(runs), "--run-id", "direct", "--json"]
        done = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=900)
        assert done.returncode == 0, done.stderr[-3000:]
        requests = {name: [r["messages"] for r in model.requests[name]] for name in scripts}

    result, (r1, r2) = _trial(runs, "openai-fix")
    assert (result.outcome, result.passed_round, result.infra_error) == (TrialOutcome.passed, 2, None)
    assert [r.counters.malformed_responses for r in result.rounds] == [0, 0]
    assert r1.edited_files == r2.edited_files == list(TASK.solution_files)

    # One request per round, each a fresh prompt: round 1 is the training prompt of the
    # task with the answer format added; round 2 shows the feedback and the code as round 1 left it.
    contract = load_contract("original")
    system = contract.system_text(TASK) + "\n\n" + ANSWER_FORMAT if contract.system_text(TASK) else ANSWER_FORMAT
    assert requests["fix"] == [
        listing_prompt(system, contract.first_message(TASK), STUBS),
        listing_prompt(system, r2.message, {n: t.encode() for n, t in WRONG.items()}),
    ]
    assert r1.calls[0].request == requests["fix"][0] and r1.response == render_whole(WRONG)
    assert r2.message == contract.feedback_message(TASK, result.rounds[0].test_report)
    assert r2.chat_after is not None and r2.chat_after.done[-1] == {"role": "assistant", "content": SOLVED}

    # The answer naming ../escaped.h is malformed as a whole: nothing of it is written.
    escaped, rounds = _trial(runs, "openai-escape")
    assert escaped.outcome is TrialOutcome.failed and not outside.exists()
    assert all(r.edited_files == [] and r.counters.malformed_responses == 1 for r in rounds)
    assert "'../escaped.h'" in rounds[0].notes[0]
    assert (runs / "direct" / "openai-escape" / "clock" / "trial-1" / "round-1" / "workspace" / "clock.cpp").read_bytes() \
        == STUBS["clock.cpp"]

    manifest = RunManifest.model_validate_json((runs / "direct" / "manifest.json").read_bytes())
    assert {(c.agent_profile, c.aider_version, c.edit_format) for c in manifest.configs} == {("direct", "none", "whole")}
    assert json.loads((runs / "direct" / "agent_profile.json").read_text())["agent"] == "direct"


def test_gold_passes_fixed26_tasks_in_round_1_through_the_direct_agent(tmp_path):
    from harness.run import run
    from harness.run.config import RunConfig
    from harness.store import RunFolder

    sample = ["binary-search-tree", "clock", "meetup", "zebra-puzzle"]  # header-only, class, Boost, search
    summary = run(RunConfig(suite="fixed26", models=["gold"], tasks=sample, trials=1, agent="direct", workers=2,
                            sandbox="docker", runs_dir=tmp_path, run_id="gold"))
    folder = RunFolder(summary.run_dir)
    for slug in sample:
        r = folder.read_result("gold", slug, 1)
        assert (r.outcome, r.passed_round, r.tampered) == (TrialOutcome.passed, 1, []), (slug, r.infra_error)
        assert r.rounds[0].counters.malformed_responses == 0
