"""`harness run` end to end: the real Aider driver in the real Aider environment, the real
sandbox, and a scripted model server as the only test double. One run holds a model that
solves the task at once, one that fixes it from the test feedback, one that never does,
one whose answer is malformed, one that answers nothing, one whose server fails once, one whose server is down (an
infrastructure error that --resume then reruns, alone), and one whose server goes down after
round 1 (round 1 is kept; --resume runs only round 2, on round 1's workspace and chat)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from harness.agents.editformat import render_whole as whole_answer
from harness.outcomes import load
from harness.records import RoundTrajectory, Sampling, Status, TestReport, TrialOutcome
from harness.run import run
from harness.run.config import RunConfig
from harness.store import RunFolder
from harness.task import load_task

from tests.conftest import GOLDEN
from tests.run_support import fast_profile, make_suite
from tests.scripted_model import Script, ScriptedModel

pytestmark = [pytest.mark.slow]

TASK = load_task(GOLDEN / "sum-of-squares")
REF = {name: data.decode() for name, data in TASK.reference_files().items()}
SOLVED = whole_answer(REF)
WRONG = whole_answer({"sum_of_squares.cpp": REF["sum_of_squares.cpp"].replace("total += k * k;", "total += k;")})
# It also reads the environment, which the static screen flags on the round.
BROKEN = whole_answer({"sum_of_squares.cpp": '#include <cstdlib>\n#include "sum_of_squares.h"\n'
                                             "namespace sum_of_squares {\n"
                                             'long long sum(int n) { return std::getenv("N") ? 0 : n * ; }\n}\n'})
# A fenced block with no file name while two files are in the chat: Aider cannot apply it.
MALFORMED = "```cpp\n" + REF["sum_of_squares.cpp"] + "```\n"


def trajectory(run_dir: Path, config: str, round_no: int) -> RoundTrajectory:
    path = run_dir / config / "sum-of-squares" / "trial-1" / f"round-{round_no}" / "trajectory.json"
    return RoundTrajectory.model_validate_json(path.read_bytes())


def _files_in_any_order(messages: list[dict]) -> list[dict]:
    """The messages with the chat's files sorted by name: Aider lists them in the order of a
    set of absolute paths, which differs between any two driver processes or workspaces."""
    def normal(m: dict) -> dict:
        if m["role"] != "user" or not str(m["content"]).startswith("I have *added these files to the chat*"):
            return m
        header, *files = re.split(r"\n(?=\S+\n```\n)", m["content"])
        return {**m, "content": [header, *sorted(files)]}
    return [normal(m) for m in messages]


def test_scripted_models_through_aider(tmp_path):
    scripts = {
        "solve1": Script([SOLVED]),
        "fix2": Script([WRONG, SOLVED]),
        "never": Script([BROKEN, WRONG]),
        "malformed": Script([MALFORMED]),
        "flaky": Script([500, SOLVED]),
        "down": Script([], then=500),
        "silent": Script([], then=""),
        "fault2": Script([WRONG], then=500),
    }
    runs = tmp_path / "runs"
    with ScriptedModel(scripts) as model:
        config = RunConfig(
            suite=str(make_suite(tmp_path)), models=[f"openai/{name}@{model.api_base}" for name in scripts],
            trials=1, rounds=2, workers=2, agent=str(fast_profile(tmp_path)), runs_dir=runs, run_id="e2e",
            sampling=Sampling(temperature=0.0, seed=7),
        )
        summary = run(config)
        run_dir = runs / "e2e"
        folder = RunFolder(run_dir)
        results = {name: folder.read_result(f"openai-{name}", "sum-of-squares", 1) for name in scripts}

        # solved in round 1, from the task's instructions and only the solution files
        r = results["solve1"]
        assert (r.outcome, r.passed_round, len(r.rounds)) == (TrialOutcome.passed, 1, 1)
        t = trajectory(run_dir, "openai-solve1", 1)
        sent = json.dumps([c.request for c in t.calls])
        assert "the sum of the squares of 1, 2, ..., n" in t.message
        assert "sum_of_squares_test" not in sent and "TEST_CASE" not in sent
        assert "long long sum(int) { return -1; }" in sent  # the stub, as the chat shows it
        assert t.edited_files == ["sum_of_squares.cpp", "sum_of_squares.h"]
        snapshot = run_dir / "openai-solve1" / "sum-of-squares" / "trial-1" / "round-1" / "workspace"
        assert (snapshot / "sum_of_squares.cpp").read_text() == REF["sum_of_squares.cpp"]
        assert r.rounds[0].counters.prompt_tokens == sum(c.prompt_tokens for c in t.calls if c.purpose == "edit")
        assert r.rounds[0].counters.completion_tokens == len(SOLVED.split())  # the server counts words
        assert r.rounds[0].timings.model_seconds > 0 and r.rounds[0].timings.test_seconds > 0
        assert model.requests["solve1"][0]["seed"] == 7 and model.requests["solve1"][0]["temperature"] == 0.0

        # failed round 1, fixed in round 2 from the feedback, which reached the model
        r = results["fix2"]
        assert (r.outcome, r.passed_round, len(r.rounds)) == (TrialOutcome.passed, 2, 2)
        assert r.rounds[0].test_report.status is Status.failed
        feedback = trajectory(run_dir, "openai-fix2", 2).message
        assert "FAILED: sum of the first ten" in feedback and "385" in feedback
        assert "The tests are correct; do not try to change them." in feedback
        assert model.last_user_message("fix2", 1).startswith(feedback.strip()[:200])
        # the same chat went on: round 2's request carries round 1's exchange
        history = [m["content"] for m in model.requests["fix2"][1]["messages"]]
        assert any("the sum of the squares of 1, 2, ..., n" in str(c) for c in history)
        assert any("total += k;" in str(c) for c in history)
        report = TestReport.model_validate_json(
            (run_dir / "openai-fix2" / "sum-of-squares" / "trial-1" / "round-1" / "test_report.json").read_bytes())
        assert report.status is Status.failed

        # never solved: a compile error, then a wrong answer; the diagnostics were fed back
        r = results["never"]
        assert (r.outcome, r.passed_round, len(r.rounds)) == (TrialOutcome.failed, None, 2)
        assert r.rounds[0].test_report.status is Status.error
        assert [f.rule for f in r.rounds[0].screen_flags] == ["environment"]
        assert r.rounds[1].screen_flags == []
        assert "The build failed" in trajectory(run_dir, "openai-never", 2).message
        assert "error" in trajectory(run_dir, "openai-never", 2).message

        # a malformed answer: the round fails and the counters say why
        r = results["malformed"]
        assert r.outcome is TrialOutcome.failed
        assert r.rounds[0].counters.malformed_responses == 1
        assert any("did not conform to the edit format" in n for n in trajectory(run_dir, "openai-malformed", 1).notes)

        # an empty answer: nothing edited, the tests fail, the counters say so
        r = results["silent"]
        assert (r.outcome, len(r.rounds)) == (TrialOutcome.failed, 2)
        assert [rr.counters.empty_responses for rr in r.rounds] == [1, 1]
        assert [rr.edited_files for rr in r.rounds] == [[], []]

        # a 500, retried (by the provider client under Aider), then a success: not a
        # failure of any kind
        r = results["flaky"]
        assert (r.outcome, r.passed_round, r.infra_error) == (TrialOutcome.passed, 1, None)
        assert len(model.requests["flaky"]) == 2
        last = trajectory(run_dir, "openai-flaky", 1).calls[-1]
        assert last.error is None and "sum_of_squares.cpp" in last.response

        # a server that stays down: an infrastructure error, never a task failure
        r = results["down"]
        assert r.outcome is TrialOutcome.infra_error and r.infra_error.kind == "provider"
        assert r.infra_error.attempts >= 2 and all(rr.test_report is None for rr in r.rounds)

        by_config = {c.config: c for c in summary.configs}
        assert by_config["openai-fix2"].first_round_mean == 0 and by_config["openai-fix2"].two_round_mean == 1
        assert (by_config["openai-fix2"].recovered, by_config["openai-fix2"].first_round_failures) == (1, 1)
        assert by_config["openai-down"].infra_errors == 1

        manifest = folder.read_manifest()
        assert [c.name for c in manifest.configs] == [f"openai-{n}" for n in scripts]
        assert manifest.configs[0].sampling == Sampling(temperature=0.0, seed=7)
        assert manifest.configs[0].agent_profile == "test-whole" and manifest.finished_at

        # round 1 failed its tests, then the server went down in round 2: round 1 is kept
        r = results["fault2"]
        assert r.outcome is TrialOutcome.infra_error and r.rounds[0].test_report.status is Status.failed
        assert trajectory(run_dir, "openai-fault2", 1).chat_after.done  # the conversation to continue from
        frame = load([("auto", str(run_dir))]).frame.set_index("config")
        row = frame.loc["openai-fault2"]
        assert (row["status"], row["round1_known"], row["round2_known"]) == ("partial", True, False)
        assert by_config["openai-fault2"].infra_errors == 1

        # the server comes back: --resume reruns the infrastructure errors and nothing else;
        # the faulted trial reruns only its round 2, from round 1's workspace and chat
        unchanged = [n for n in scripts if n not in ("down", "fault2")]
        before = {n: (folder.trial_dir(f"openai-{n}", "sum-of-squares", 1) / "result.json").read_bytes()
                  for n in unchanged}
        round1 = folder.trial_dir("openai-fault2", "sum-of-squares", 1) / "round-1"
        kept = {p: p.read_bytes() for p in sorted(round1.rglob("*")) if p.is_file()}
        asked = {n: len(model.requests[n]) for n in scripts}
        scripts["down"].then = SOLVED
        scripts["fault2"].then = SOLVED
        resumed = run(RunConfig(resume="e2e", runs_dir=runs, workers=2))
        assert (resumed.ran, resumed.skipped) == (2, len(scripts) - 2)
        assert folder.read_result("openai-down", "sum-of-squares", 1).outcome is TrialOutcome.passed
        for n, data in before.items():
            assert (folder.trial_dir(f"openai-{n}", "sum-of-squares", 1) / "result.json").read_bytes() == data
            assert len(model.requests[n]) == asked[n]
        r = folder.read_result("openai-fault2", "sum-of-squares", 1)
        assert (r.outcome, r.passed_round, len(r.rounds)) == (TrialOutcome.passed, 2, 2)
        assert r.rounds[0] == results["fault2"].rounds[0] and r.started_at == results["fault2"].started_at
        assert {p: p.read_bytes() for p in sorted(round1.rglob("*")) if p.is_file()} == kept
        # one request more: round 2 alone, carrying round 1's exchange and its test feedback,
        # as the uninterrupted fix2 trial (same task, same round-1 answer) sent it
        resent = [m for body in model.requests["fault2"][asked["fault2"]:] for m in body["messages"]]
        assert len(model.requests["fault2"]) - asked["fault2"] == 1
        assert _files_in_any_order(resent) == _files_in_any_order(model.requests["fix2"][1]["messages"])
