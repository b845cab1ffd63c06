"""The pieces of `harness run` that need no agent: prompt contracts and the test output a
model is shown, agent profiles, model specs and their checks, gold answers, run folders."""

from __future__ import annotations

import json
import os
import socket

import pytest

from harness.agents.registry import load_profile
from harness.contract import load_contract, render_test_output
from harness.errors import BadInput
from harness.agents.editformat import render_diff as diff_answer, render_whole as whole_answer
from harness.fs import atomic_write
from harness.gold import ChatServer, GoldModel, reference_answer
from harness.mutant_model import plan_answers
from harness.models import PLACEHOLDER_KEY, check_keys, config_name, parse_model
from harness.models import check_access as validate
from harness.records import (
    InfraFailure,
    ProviderError,
    RoundTrajectory,
    Status,
    TestCaseResult,
    TestReport,
    TrialOutcome,
    TrialResult,
)
from harness.store import RESULT, RunFolder
from harness.suite import find_suite
from harness.task import load_task

from tests.conftest import GOLDEN, ROOT

TASK = load_task(GOLDEN / "sum-of-squares")

FAILED = TestReport(status=Status.failed, tests=[
    TestCaseResult(name="sum of nothing is zero", status=Status.passed),
    TestCaseResult(name="sum of the first ten", status=Status.failed,
                   message="REQUIRE( sum_of_squares::sum(10) == 385 )\nwith expansion:\n  55 == 385", output="dbg 55"),
])
BUILD_ERROR = TestReport(status=Status.error, message="sum_of_squares.cpp:5:33: error: expected primary-expression before ';' token")


# --- contracts ---------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["original", "fixed26-contract", "fixed26-contract-v2"])
def test_bundled_contracts_render_for_a_task(name):
    c = load_contract(name)
    first = c.first_message(TASK)
    assert first.startswith(TASK.instructions())
    assert "sum_of_squares.cpp sum_of_squares.h" in first
    assert "sum_of_squares_test.cpp" not in first  # the tests are never mentioned
    feedback = c.feedback_message(TASK, FAILED)
    assert feedback.startswith(render_test_output(FAILED))
    assert "sum_of_squares.cpp" in feedback


def test_contracts_differ_and_their_hashes_say_so():
    hashes = {load_contract(n).prompt_hash(TASK) for n in ("original", "fixed26-contract", "fixed26-contract-v2")}
    assert len(hashes) == 3
    assert load_contract("original").prompt_hash(TASK) == load_contract("original").prompt_hash(TASK)


def test_only_the_strict_contract_has_system_text():
    assert load_contract("original").system_text(TASK) == ""
    assert "sum_of_squares.cpp sum_of_squares.h" in load_contract("fixed26-contract-v2").system_text(TASK)


def test_a_contract_with_an_unknown_field_is_refused(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text('name = "bad"\nversion = "1"\ninstructions = "{instructions} {tests}"\nfeedback = "{test_output}"\n')
    with pytest.raises(BadInput, match="unknown fields"):
        load_contract(str(bad))
    with pytest.raises(BadInput, match="unknown prompt contract"):
        load_contract("no-such-contract")


def test_test_output_shows_failures_and_diagnostics_without_timings():
    text = render_test_output(FAILED)
    assert "FAILED: sum of the first ten" in text and "55 == 385" in text and "dbg 55" in text
    assert "sum of nothing is zero" not in text  # passing tests are not news
    assert "1 of 2 tests failed." in text
    build = render_test_output(BUILD_ERROR.model_copy(update={"build_seconds": 3.2}))
    assert build.startswith("The build failed:") and "expected primary-expression" in build
    assert "3.2" not in build


def test_test_output_is_capped():
    huge = TestReport(status=Status.error, message="x" * 50_000)
    text = render_test_output(huge, cap_chars=1000)
    assert len(text) < 1100 and "more characters of test output cut" in text


# --- agent profiles ----------------------------------------------------------------------


def test_bundled_profiles():
    whole, diff = load_profile("aider-whole"), load_profile("aider-diff")
    assert (whole.edit_format, diff.edit_format) == ("whole", "diff")
    assert whole.aider_version == diff.aider_version == "0.86.2"
    assert whole.content_hash != diff.content_hash


def test_profile_hash_ignores_the_description_only(tmp_path):
    text = (ROOT / "agents" / "aider-whole.toml").read_text()
    p1, p2, p3 = tmp_path / "a.toml", tmp_path / "b.toml", tmp_path / "c.toml"
    p1.write_text(text)
    p2.write_text(text.replace('description = "', 'description = "reworded: '))
    p3.write_text(text.replace("context_window = 32768", "context_window = 8192"))
    assert load_profile(str(p1)).content_hash == load_profile(str(p2)).content_hash
    assert load_profile(str(p1)).content_hash != load_profile(str(p3)).content_hash


def test_bad_profiles_are_bad_input(tmp_path):
    with pytest.raises(BadInput, match="unknown agent profile"):
        load_profile("nope")
    bad = tmp_path / "bad.toml"
    bad.write_text('name = "bad"\nedit_format = "udiff-simple"\n')
    with pytest.raises(BadInput, match="not a valid agent profile"):
        load_profile(str(bad))


def test_a_profile_is_read_by_the_agent_it_names(tmp_path):
    from harness.agents.aider.profile import AiderProfile
    from harness.agents.direct import DirectProfile

    assert isinstance(load_profile("direct"), DirectProfile) and load_profile("direct").agent_version == "none"
    unnamed = tmp_path / "unnamed.toml"  # written before there was a second agent: Aider's
    unnamed.write_text('name = "unnamed"\nedit_format = "diff"\n')
    assert isinstance(load_profile(str(unnamed)), AiderProfile)
    other = tmp_path / "other.toml"
    other.write_text('name = "other"\nagent = "nope"\n')
    with pytest.raises(BadInput, match="unknown agent 'nope'; choose one of aider, direct"):
        load_profile(str(other))
    diff = tmp_path / "direct-diff.toml"
    diff.write_text('name = "direct-diff"\nagent = "direct"\nedit_format = "diff"\n')
    with pytest.raises(BadInput, match="not a valid agent profile: edit_format"):
        load_profile(str(diff))
    aider_only = tmp_path / "direct-coder.toml"
    aider_only.write_text('name = "direct-coder"\nagent = "direct"\n[coder]\nauto_lint = true\n')
    with pytest.raises(BadInput, match="coder"):
        load_profile(str(aider_only))


# --- models ------------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_model_kinds():
    assert parse_model("gold").kind == "gold"
    assert parse_model("anthropic/claude-3-5-sonnet-20241022").kind == "hosted"
    spec = parse_model("openai/my-model", "http://127.0.0.1:9/v1")
    assert (spec.kind, spec.litellm_model, spec.api_base) == ("server", "openai/my-model", "http://127.0.0.1:9/v1")


@pytest.mark.parametrize("name", ["foo/bar", "notaprovider", ""])
def test_unknown_models_are_bad_input(name):
    with pytest.raises(BadInput):
        parse_model(name)


def test_missing_key_is_bad_input(monkeypatch):
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    with pytest.raises(BadInput, match="ANTHROPIC_API_KEY"):
        validate(parse_model("anthropic/claude-3-5-sonnet-20241022"))
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test")
    check_keys(parse_model("anthropic/claude-3-5-sonnet-20241022"))
    # With its key, the model is asked for one token: here no provider can be reached.
    monkeypatch.setenv("ANTHROPIC_API_BASE", f"http://127.0.0.1:{free_port()}")
    with pytest.raises(BadInput, match="cannot reach"):
        validate(parse_model("anthropic/claude-3-5-sonnet-20241022"))


def test_a_server_must_answer():
    down = parse_model("openai/m", f"http://127.0.0.1:{free_port()}/v1")
    with pytest.raises(BadInput, match="no server answers"):
        validate(down)
    with ChatServer(lambda route, body: "hi") as server:
        validate(parse_model("openai/m", server.base("")))


def test_keyless_servers_get_a_placeholder_key(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    assert parse_model("openai/m", "http://x/v1").api_key() == PLACEHOLDER_KEY
    monkeypatch.setenv("OPENAI_API_KEY", "sk-real")
    assert parse_model("openai/m", "http://x/v1").api_key() is None  # litellm sends the user's
    assert parse_model("anthropic/claude-3-5-sonnet-20241022").api_key() is None


def test_config_names_are_folder_names_and_unique():
    spec = parse_model("openai/org/model:latest", "http://x/v1")
    assert config_name(spec) == "openai-org-model-latest"
    assert config_name(spec, {"openai-org-model-latest"}) == "openai-org-model-latest-2"


# --- gold --------------------------------------------------------------------------------


def test_gold_answers_in_both_edit_formats():
    whole = reference_answer(TASK, "whole")
    assert whole.startswith("sum_of_squares.cpp\n```cpp\n#include")
    assert TASK.reference_files()["sum_of_squares.cpp"].decode() in whole
    diff = reference_answer(TASK, "diff")
    assert "<<<<<<< SEARCH\n" + TASK.stub_files()["sum_of_squares.cpp"].decode() in diff
    assert ">>>>>>> REPLACE" in diff
    with pytest.raises(BadInput):
        reference_answer(TASK, "udiff")


def test_gold_names_files_as_the_agent_shows_them():
    # Aider without git names a Java exercise's files from src/main/java, so a reference's
    # second class must come as Frame.java, not src/main/java/Frame.java (which Aider would
    # write to src/main/java/src/main/java/); the direct agent names them from the task.
    chat = ["src/main/java/BowlingGame.java"]
    aider, direct = load_profile("aider-polyglot"), load_profile("direct")
    assert (aider.names_from(chat), direct.names_from(chat)) == ("src/main/java", "")
    assert aider.names_from(["sum_of_squares.h", "sum_of_squares.cpp"]) == ""
    reference = {"src/main/java/BowlingGame.java": b"class BowlingGame {}\n",
                 "src/main/java/Frame.java": b"class Frame {}\n"}
    gold = GoldModel()
    named = gold.add("mini", TASK, ({}, reference), aider.names_from(chat))
    assert gold._respond(f"gold/whole/{named}", {}).startswith("BowlingGame.java\n```java\n")
    assert "\nFrame.java\n```java\nclass Frame" in gold._respond(f"gold/whole/{named}", {})
    as_is = gold.add("mini", TASK, ({}, reference))
    assert "src/main/java/Frame.java\n" in gold._respond(f"gold/whole/{as_is}", {})


def test_fences_outgrow_backticks_in_the_content():
    text = whole_answer({"a.md": "```\ncode\n```\n"})
    assert text.startswith("a.md\n````\n") and text.endswith("````\n")
    assert diff_answer({"a.h": "int x;"}, {"a.h": "int y;"}).count("=======") == 1


def test_gold_server_routes_by_task_and_format():
    import httpx

    gold = GoldModel().start()
    try:
        key = gold.add("mini", TASK)
        url = gold.api_base("whole", key) + "/chat/completions"
        body = {"model": "gold", "messages": [{"role": "user", "content": "solve it"}]}
        reply = httpx.post(url, json=body).json()
        assert reply["choices"][0]["message"]["content"] == reference_answer(TASK, "whole")
        assert reply["usage"]["prompt_tokens"] == 2
        assert httpx.post(gold.server.base("gold/whole/mini/nope") + "/chat/completions", json=body).status_code == 404
    finally:
        gold.stop()


# --- run folders -------------------------------------------------------------------------


def result(outcome: TrialOutcome) -> TrialResult:
    return TrialResult(run_id="r", config="c", task="t", trial=1, suite="s", task_hash="h", model="m",
                       outcome=outcome, started_at="a", finished_at="b")


def test_only_a_readable_finished_result_means_done(tmp_path):
    folder = RunFolder(tmp_path / "r")
    d = folder.trial_dir("c", "t", 1)
    assert not folder.is_done("c", "t", 1)
    d.mkdir(parents=True)
    (d / RESULT).write_text("{ half a result")
    assert folder.read_result("c", "t", 1) is None
    atomic_write(d / RESULT, result(TrialOutcome.infra_error).model_dump_json().encode())
    assert folder.read_result("c", "t", 1) is not None and not folder.is_done("c", "t", 1)
    atomic_write(d / RESULT, result(TrialOutcome.failed).model_dump_json().encode())
    assert folder.is_done("c", "t", 1)
    assert [p.name for p in d.iterdir()] == [RESULT]  # no temporary file left behind


def test_resume_reruns_infra_errors_but_harness_bugs_only_when_asked():
    provider = result(TrialOutcome.infra_error).model_copy(
        update={"infra_error": InfraFailure(kind="provider", message="InternalServerError: 500")})
    bug = result(TrialOutcome.infra_error).model_copy(
        update={"infra_error": InfraFailure(kind="harness", message="unexpected KeyError: 'x'")})
    assert provider.rerun_on_resume() and provider.rerun_on_resume(retry_harness_errors=True)
    assert not bug.done and bug.harness_bug
    assert not bug.rerun_on_resume() and bug.rerun_on_resume(retry_harness_errors=True)
    assert not result(TrialOutcome.failed).rerun_on_resume(retry_harness_errors=True)


def test_a_result_of_an_unknown_schema_version_is_refused_not_rerun(tmp_path):
    folder = RunFolder(tmp_path / "r")
    d = folder.trial_dir("c", "t", 1)
    d.mkdir(parents=True)
    newer = json.dumps(json.loads(result(TrialOutcome.passed).model_dump_json()) | {"schema_version": 2, "new": 1})
    atomic_write(d / RESULT, newer.encode())
    with pytest.raises(BadInput, match="schema_version 2; this harness reads 1"):
        folder.read_result("c", "t", 1)
    with pytest.raises(BadInput):
        folder.is_done("c", "t", 1)
    assert (d / RESULT).read_text() == newer


def test_a_schema_1_trajectory_reads_its_provider_error_from_text():
    old = {"schema_version": 1, "round": 1, "message": "m", "sent_at": "a",
           "provider_error": "InternalServerError: litellm.InternalServerError: 500: down"}
    t = RoundTrajectory.model_validate_json(json.dumps(old))
    assert t.provider_error == ProviderError(type="InternalServerError", message="litellm.InternalServerError: 500: down")
    assert str(t.provider_error) == old["provider_error"]
    assert RoundTrajectory.model_validate_json(t.model_dump_json()) == t


def test_a_rerun_trial_starts_from_an_empty_folder(tmp_path):
    d = tmp_path / "trial-1"
    (d / "round-1").mkdir(parents=True)
    (d / "round-1" / "trajectory.json").write_text(json.dumps({}))
    RunFolder.fresh_trial_dir(d)
    assert d.is_dir() and not os.listdir(d)


def test_run_ids_are_unique_and_runs_are_not_overwritten(tmp_path):
    from harness.store import new_run_id

    assert new_run_id() != new_run_id()
    RunFolder.create(tmp_path, "x")
    with pytest.raises(BadInput, match="--resume x"):
        RunFolder.create(tmp_path, "x")
    with pytest.raises(BadInput, match="no such run"):
        RunFolder.open(tmp_path, "y")


@pytest.mark.slow
def test_an_aider_version_that_cannot_be_installed_is_an_infra_error(tmp_path, monkeypatch):
    from harness.agents.aider.env import env_root, ensure_aider_env, installed_python
    from harness.errors import InfraError, InfraKind

    monkeypatch.setenv("HARNESS_CACHE_DIR", str(tmp_path))
    with pytest.raises(InfraError) as exc:
        ensure_aider_env("0.0.0.dev999")
    assert exc.value.kind is InfraKind.agent and "aider-chat==0.0.0.dev999" in str(exc.value)
    assert installed_python("0.0.0.dev999") is None  # no marker: the next run tries again
    assert env_root("0.0.0.dev999").is_relative_to(tmp_path)


def test_retrying_harness_errors_needs_a_run_to_resume():
    from harness.run.config import RunConfig
    from harness.run.plan import make_plan

    with pytest.raises(BadInput, match="--retry-harness-errors .* --resume"):
        make_plan(RunConfig(models=["gold"], retry_harness_errors=True))


def test_a_mutant_share_is_of_each_trials_tasks():
    """mutant:SHARE answers that share of each trial's tasks wrongly, not each task-trial by
    chance: over fixed26, mutant:0.3 answers 7 or 8 of the 26 wrongly in every trial, and
    half of those take the reference after the test output; with the same seed, a smaller
    share's wrong answers are among a larger's."""
    suite = find_suite("fixed26")
    slugs = [t.slug for t in suite.tasks]
    shares = (0.2, 0.3, 0.5)
    for trial in range(1, 11):
        plans = {share: {s: plan_answers(suite.task(s), "fixed26", share, 0, trial, slugs) for s in slugs} for share in shares}
        wrong = {share: {s for s, plan in plans[share].items() if plan.wrong} for share in shares}
        assert (len(wrong[0.2]), len(wrong[0.3]), len(wrong[0.5])) in {(a, b, 13) for a in (5, 6) for b in (7, 8)}, trial
        assert wrong[0.2] <= wrong[0.3] <= wrong[0.5]
        recovered = [s for s in wrong[0.3] if plans[0.3][s].later is not plans[0.3][s].first]
        assert len(recovered) == len(wrong[0.3]) // 2 or len(recovered) == (len(wrong[0.3]) + 1) // 2
