"""Test writing through `harness run --kind tests`, with the real Aider driver against a
local server: gold answers each task with its own test file, which is valid and kills
every target; a scripted model writes a suite with one wrong expected value in round 1, is
shown the failing assertion on the correct solution (which it sees read-only), and fixes it
in round 2; the same model under the style prompt is a configuration of its own (the
prompted control); a model that writes FILL for every expected value has them filled in
by execution and is valid in round 1, which compare shows against the unfilled run; the
report and compare give the suites' numbers, and the rounds export
as SFT and preference pairs that `datasets` loads and as GRPO prompts whose judge rewards
validity x kill rate, which a GRPO update of a tiny model trains on."""

from __future__ import annotations

import json

import pytest

from harness.agents.editformat import render_whole
from harness.outcomes import load, load_pair
from harness.records import TestWritingSettings, TrialOutcome
from harness.report import ReportOptions, build_comparison, build_report
from harness.run import run
from harness.run.config import RunConfig
from harness.store import RunFolder
from harness.suite import find_suite
from harness.testwriting.export import CORRECTED_FILE, GRPO_FILE, PREFERENCE_FILE, export_suites
from harness.train.config import RuntimeSettings
from harness.training_files import SFT_FILE
from harness.train.environments import load_training_data, make_judges

from tests.run_support import fast_profile
from tests.train_support import CPU, harness, private_state, steps_of
from tests.scripted_model import Script, ScriptedModel
from tests.testwriting.test_testwriting import MUTANT_CAP, suite_source, with_placeholders

pytestmark = [pytest.mark.docker, pytest.mark.slow]

SUITE = find_suite("fixed26")
TASK = SUITE.task("perfect-numbers")
TEST_FILE = TASK.test_files[0]
WRONG = suite_source("perfect-numbers", "wrong_value").decode()
RIGHT = TASK.read(TEST_FILE).decode()
FEEDBACK = "Those are the results of your tests on the correct solution"
STYLE = "You write unit tests that find bugs."
OPTS = ReportOptions(resamples=1000)


def writer(body: dict) -> str:
    """Round 1: the task's tests with one wrong value; after the feedback: the right ones."""
    last = next(m["content"] for m in reversed(body["messages"]) if m["role"] == "user")
    return render_whole({TEST_FILE: RIGHT if FEEDBACK in last else WRONG})


@pytest.fixture(scope="module")
def runs(docker_sandbox, tmp_path_factory):
    tmp = tmp_path_factory.mktemp("tests-kind")
    runs_dir = tmp / "runs"
    placeholders = render_whole({TEST_FILE: with_placeholders(RIGHT.encode()).decode()})
    scripts = {"writer": Script(by_request=writer), "filler": Script(then=placeholders)}
    tests = TestWritingSettings(mutant_cap=MUTANT_CAP)
    with ScriptedModel(scripts) as model:
        gold = run(RunConfig(kind="tests", tasks=["perfect-numbers", "allergies"], models=["gold"], trials=1,
                             workers=2, agent=str(fast_profile(tmp)), tests=tests, runs_dir=runs_dir, run_id="gold",
                             sandbox="docker"))
        written = run(RunConfig(kind="tests", tasks=["perfect-numbers"],
                                models=[f"openai/writer@{model.api_base}", f"openai/writer@{model.api_base}::tests-style"],
                                trials=1, rounds=2, workers=2,
                                agent=str(fast_profile(tmp)), tests=tests, runs_dir=runs_dir, run_id="writer",
                                sandbox="docker"))
        filled = run(RunConfig(kind="tests", tasks=["perfect-numbers"], api_base=model.api_base,
                               models=["openai/filler"], trials=1, rounds=2, agent=str(fast_profile(tmp)),
                               tests=tests.model_copy(update={"fill": True}), runs_dir=runs_dir, run_id="filled",
                               sandbox="docker"))
        requests = list(model.requests["writer"])
        asked_filler = list(model.requests["filler"])
    return {"tmp": tmp, "gold": gold, "writer": written, "filled": filled, "requests": requests,
            "asked_filler": asked_filler}


def test_gold_writes_each_tasks_own_tests_valid_killing_every_target(runs):
    folder = RunFolder(runs["gold"].run_dir)
    assert folder.read_manifest().kind == "tests"
    for slug in ("perfect-numbers", "allergies"):
        r = folder.read_result("gold", slug, 1)
        assert (r.outcome, r.passed_round) == (TrialOutcome.passed, 1)
        (first,) = r.rounds
        assert (first.valid, first.assertion_accuracy, first.kill_rate) == (True, 1.0, 1.0)
        scored = json.loads((folder.trial_dir("gold", slug, 1) / "round-1" / "scored_suite.json").read_text())
        assert scored["killed"] == scored["scored"] >= 5


def test_a_wrong_value_fixed_from_the_failing_assertion_in_round_2(runs):
    folder = RunFolder(runs["writer"].run_dir)
    trial = folder.trial_dir("openai-writer", "perfect-numbers", 1)
    r = folder.read_result("openai-writer", "perfect-numbers", 1)
    assert (r.outcome, r.passed_round, len(r.rounds)) == (TrialOutcome.passed, 2, 2)
    one, two = r.rounds
    # Round 1: it compiles, one assertion of 13 fails on the correct solution: invalid.
    assert (one.valid, one.assertion_accuracy, one.kill_rate) == (False, 12 / 13, None)
    assert (two.valid, two.assertion_accuracy, two.kill_rate) == (True, 1.0, 1.0)
    assert (trial / "round-1" / "workspace" / TEST_FILE).read_text() == WRONG
    # What the model saw: the reference read-only beside its test file, then the failure.
    first = runs["requests"][0]["messages"]
    assert any("READ ONLY" in m["content"] and "long long aliquot_sum(int number)" in m["content"] for m in first)
    message = json.loads((trial / "round-2" / "trajectory.json").read_text())["message"]
    assert "FAILED: Smallest abundant number is classified correctly" in message
    assert "classify(12) == perfect_numbers::classification::perfect" in message and FEEDBACK in message
    # The solution in the workspace stayed the reference: nothing was tampered with.
    assert (trial / "round-2" / "workspace" / "perfect_numbers.h").read_bytes() == TASK.reference_files()["perfect_numbers.h"]
    assert r.tampered == []


def test_the_prompted_control_is_a_configuration_with_its_own_contract(runs):
    folder = RunFolder(runs["writer"].run_dir)
    configs = {c.name: c.contract for c in folder.read_manifest().configs}
    assert configs == {"openai-writer": "tests", "openai-writer--tests-style": "tests-style"}
    assert (folder.root / "contract-openai-writer--tests-style.json").is_file()
    systems = [m["content"] for req in runs["requests"] for m in req["messages"] if m["role"] == "system"]
    assert sum(STYLE in s for s in systems) == 2  # the control's two rounds, the other config's none
    assert folder.read_result("openai-writer--tests-style", "perfect-numbers", 1).passed_round == 2


def test_filled_by_execution_the_placeholders_make_a_valid_suite_in_round_1(runs):
    folder = RunFolder(runs["filled"].run_dir)
    assert folder.read_manifest().tests.fill and folder.read_manifest().configs[0].contract == "tests-fill"
    assert "Write each one as the placeholder FILL" in runs["asked_filler"][0]["messages"][-1]["content"]
    r = folder.read_result("openai-filler", "perfect-numbers", 1)
    assert r.passed_round == 1 and (r.rounds[0].valid, r.rounds[0].kill_rate) == (True, 1.0)
    scored = json.loads((folder.trial_dir("openai-filler", "perfect-numbers", 1) / "round-1" / "scored_suite.json")
                        .read_text())
    assert scored["fill"]["placeholders"] == scored["fill"]["filled"] == 11
    # Filled against unfilled, on the same task: valid in round 1, against not.
    pair, base, new = load_pair("writer:openai-writer", "filled:openai-filler", [], runs["filled"].run_dir.parent)
    cmp = build_comparison(pair, base, new, OPTS)
    diffs = {(d["metric"], d["round"]): d["difference"] for d in cmp.data["suite_metrics"]["all tasks"]}
    assert diffs[("valid", 1)] == 1.0 and diffs[("valid", 2)] == 0.0


def test_report_and_compare_give_each_metric_with_intervals(runs):
    outcomes = load([("auto", str(runs["writer"].run_dir))])
    doc = build_report(outcomes, OPTS)
    got = {(d["config"], d["metric"], d["round"]): d["mean"] for d in doc.data["suite_metrics"]}
    assert got[("openai-writer", "valid", 1)] == 0.0 and got[("openai-writer", "valid", 2)] == 1.0
    assert got[("openai-writer", "assertion_accuracy", 1)] == pytest.approx(12 / 13)
    assert got[("openai-writer", "kill_rate", 2)] == 1.0 and ("openai-writer", "kill_rate", 1) not in got
    pair, base, new = load_pair("openai-writer", "openai-writer--tests-style", [("auto", str(runs["writer"].run_dir))])
    cmp = build_comparison(pair, base, new, OPTS.model_copy(update={"bar": 0.0, "metric": "kill_rate"}))
    assert cmp.verdict == "PASS" and cmp.lead[0].startswith(
        "Bar given at compare time, not registered before the run (post hoc): NEW must gain at least 0 in kill rate")
    diffs = {(d["metric"], d["round"]): d for d in cmp.data["suite_metrics"]["all tasks"]}
    assert diffs[("kill_rate", 2)]["difference"] == 0.0 and diffs[("kill_rate", 2)]["p_value"] == 1.0
    (task,) = cmp.data["suite_tasks"]
    assert (task["task"], task["base_kill_rate"], task["new_kill_rate"], task["kill_rate_change"]) == (
        "perfect-numbers", 1.0, 1.0, 0.0)


def test_rounds_export_as_sft_preference_and_grpo_data(runs):
    import datasets

    out = runs["tmp"] / "curricula" / "writes"
    m = export_suites([runs["writer"].run_dir, runs["gold"].run_dir], out)
    # Round 2 of each writer config, gold's two tasks; round 1 (invalid) against round 2.
    assert (m.sft, m.preference, m.grpo) == (3, 2, 2)
    assert m.source_tasks == ["fixed26/allergies", "fixed26/perfect-numbers"]
    pairs = datasets.load_dataset("json", data_files=str(out / PREFERENCE_FILE))["train"]
    assert all(WRONG in row["rejected"][0]["content"] and RIGHT in row["chosen"][0]["content"] for row in pairs)
    assert all(row["chosen_score"] == {"valid": True, "kill_rate": 1.0} for row in pairs)
    sft = datasets.load_dataset("json", data_files=str(out / SFT_FILE))["train"]
    assert {row["messages"][-1]["role"] for row in sft} == {"assistant"}

    data = load_training_data([str(out / GRPO_FILE)])
    assert list(data.environments) == ["tests"] and data.trained_on_tasks == m.source_tasks
    judge = make_judges(data, RuntimeSettings(sandbox="docker"))["tests"]
    target = next(r["target"] for r in data.environments["tests"].records if "perfect-numbers" in r["task_id"])
    try:
        got = judge.judge([render_whole({TEST_FILE: RIGHT}), render_whole({TEST_FILE: WRONG}), "no file here"],
                          [target] * 3)
    finally:
        judge.close()
    assert [(j.reward, j.status) for j in got] == [(1.0, "valid"), (0.0, "invalid"), (0.0, "malformed")]


def test_a_grpo_update_on_the_tests_environment(runs):
    from tests.tinymodel import build_tiny_model

    out = runs["tmp"] / "curricula" / "for-grpo"
    export_suites([runs["gold"].run_dir], out)
    tmp = runs["tmp"]
    with private_state(tmp / "state"):
        done = harness("train", "grpo", "--curriculum", str(out / GRPO_FILE), "--base", str(build_tiny_model(tmp / "base")),
                       "--out", "tw", "--runs-dir", str(tmp / "train-runs"), "--updates", "1", "--prompts-per-step", "2",
                       "--samples", "4", "--max-completion-length", "16", "--set", "grpo.micro_batch_size=8", *CPU)
    assert done.returncode == 0, done.stderr
    (step,) = steps_of(tmp / "train-runs" / "train" / "tw" / "log.jsonl")
    # A random tiny model writes no test file: each of its answers is unreadable, and earns 0.
    assert step["completions"] == 8 and set(step["environments"]) == {"tests"}
    assert step["statuses"] == {"malformed": 8} and step["reward_mean"] == 0.0
    run = json.loads((tmp / "train-runs" / "train" / "tw" / "run.json").read_text())
    assert run["trained_on_tasks"] == ["fixed26/allergies", "fixed26/perfect-numbers"]


def test_a_dpo_step_on_the_exported_preference_pairs(runs):
    from peft import PeftModel
    from transformers import AutoModelForCausalLM

    from harness.adapter_card import load_card, verify_card

    from tests.tinymodel import build_tiny_model

    tmp = runs["tmp"]
    export_suites([runs["writer"].run_dir], tmp / "curricula" / "for-dpo")
    base = build_tiny_model(tmp / "dpo-base")
    with private_state(tmp / "dpo-state"):
        # By name and file, as the docs write it: the export is a curriculum under ./curricula.
        done = harness("train", "dpo", "--curriculum", f"for-dpo/{PREFERENCE_FILE}", "--base", str(base), "--out", "tw-dpo",
                       "--runs-dir", str(tmp / "dpo-runs"), "--set", "dpo.batch_size=2", *CPU, cwd=tmp)
        assert done.returncode == 0, done.stderr
        card_file = tmp / "dpo-state" / "adapters" / "tw-dpo.toml"
        card = load_card(card_file)
        adapter = verify_card(card, card_file)
    assert card.training.config["kind"] == "dpo" and card.training.config["dpo"]["beta"] == 0.1
    assert card.training.trained_on_tasks == ["fixed26/perfect-numbers"]
    PeftModel.from_pretrained(AutoModelForCausalLM.from_pretrained(base), str(adapter))
    (step,) = steps_of(tmp / "dpo-runs" / "train" / "tw-dpo" / "log.jsonl")
    # Two pairs (round 2 over round 1 of each configuration) make one step of two; the loss
    # starts at log 2, where the adapter (zero at the start) leaves policy and reference equal.
    assert step["loss"] == pytest.approx(0.6931, abs=1e-3) and step["reward_accuracy"] is not None


def test_corrected_values_turn_the_wrong_suite_into_the_right_one(runs, docker_sandbox):
    import datasets

    out = runs["tmp"] / "curricula" / "corrected"
    m = export_suites([runs["writer"].run_dir, runs["filled"].run_dir], out, sandbox=docker_sandbox, corrected=True)
    # Round 1 of each writer configuration had the one wrong value; the fill-mode run's
    # suites are placeholders, never corrected.
    assert m.corrected == 2 and m.not_corrected == {}
    rows = datasets.load_dataset("json", data_files=str(out / CORRECTED_FILE))["train"]
    # 12 is abundant: the value is written as the suite itself spells abundant elsewhere.
    assert [row["messages"][-1]["content"] for row in rows] == [render_whole({TEST_FILE: RIGHT})] * 2
    assert {(r["provenance"]["run"], r["provenance"]["round"], r["provenance"]["replaced"],
             r["provenance"]["comparisons"], r["provenance"]["kill_rate"]) for r in rows} == {("writer", 1, 1, 11, 1.0)}
    assert sorted(r["provenance"]["config"] for r in rows) == sorted(c.config for c in runs["writer"].configs)
