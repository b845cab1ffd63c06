"""What `harness report` and `compare` say where statistics mislead most: small task sets,
round-2 faults, selected cohorts, unequal trials, settings that differ between or inside
configurations, unknown training sets; the pre-registered bar at its boundary; the power a
trial count allows and `harness plan-trials`. Real run folders, outcomes files and the real
command line."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from harness import stats
from harness.cli import app
from harness.loop.config import LoopConfig
from harness.loop.lineage import Iteration, Lineage
from harness.outcomes import load, load_pair
from harness.report import ReportOptions, build_comparison, build_lineage, build_report, render_json
from harness.report.data import LineageResult
from tests.report_support import STAMP, marginal_table, outcomes_table, write_run

runner = CliRunner()
FAST = ReportOptions(resamples=2_000)


def _table(doc, title: str):
    return next(t for t in doc.tables if t.title.startswith(title))


def _invoke_json(args: list[str], tmp_path, name: str = "out.json", resamples: bool = True) -> tuple[int, dict | None, str]:
    out = tmp_path / name
    result = runner.invoke(app, [*args, "--format", "json", "--out", str(out)] + (["--resamples", "2000"] if resamples else []))
    return result.exit_code, json.loads(out.read_text()) if out.is_file() else None, result.output


def test_round_2_faults_keep_round_1(tmp_path):
    """pass, pass, fail-then-fault, fail: round 1 2/4 (not 2/3), two rounds 2/3, recovery 0/1,
    in a run folder and in an outcomes file with an empty round2."""
    run = write_run(tmp_path, "r1", {"m": {"a": [1, 1, "fault2", None]}})
    outcomes_table({"m": {"a": [1, 1, "fault2", None]}}).to_csv(tmp_path / "o.csv", index=False)
    for source in (str(run), str(tmp_path / "o.csv")):
        doc = build_report(load([("auto", source)]), FAST)
        row = doc.tables[0].rows[0]
        assert row[1:4] == ["1", "4", "0.50 (50.0%)"] and row[5] == "0.67 (66.7%)" and row[7] == "0/1 (0.0%)"
        states = _table(doc, "Task-trials by state")
        assert states.columns[2:] == ["passed", "failed", "fault after round 1 (round 1 kept)",
                                      "infrastructure error", "never written"]
        assert states.rows[0] == ["m", "4", "2", "1", "1", "0", "0"]
        assert any("1 task-trial hit an infrastructure error after round 1 was tested" in n for n in doc.notes)


def test_a_small_held_out_set_with_a_small_change(tmp_path):
    """Two tasks each 0/4 -> 1/4: no zero-width interval, no small p-value where Fisher's
    exact test says 1.0, no bar passed, and a warning that intervals below 8 tasks are
    unreliable, in every output."""
    write_run(tmp_path, "r1", {"base": {"a": [None] * 4, "b": [None] * 4},
                               "new": {"a": [1, None, None, None], "b": [None, 1, None, None]}})
    for target in ("tasks", "trials"):
        code, body, output = _invoke_json(["compare", "r1:base", "r1:new", "--runs-dir", str(tmp_path),
                                           "--pre-registered-bar", "0.25", "--interval", target], tmp_path)
        assert code == 1, output
        assert body["verdict"] == "FAIL" and body["data"]["interval"]["target"] == target
        for d in body["data"]["paired"]["all tasks"]:
            assert d["difference"] == pytest.approx(0.5)
            assert d["interval"][0] < 0.5 < d["interval"][1] and d["interval"][0] <= 0
            assert d["p_value"] == pytest.approx(0.5)
        assert any("unreliable below 8 tasks (here 2)" in w for w in body["warnings"])
        for s in body["data"]["summaries"]:
            assert s["round1_low"] < s["round1_high"]
    assert stats.exact_test(0, 4, 1, 4) == 1.0  # Fisher, per task


def test_one_task_has_an_interval(tmp_path):
    write_run(tmp_path, "r1", {"m": {"a": [1, 1, 1, None]}})
    code, body, output = _invoke_json(["report", "r1", "--runs-dir", str(tmp_path)], tmp_path)
    assert code == 0, output
    (s,) = body["data"]["summaries"]
    assert s["round1_mean"] == 0.75 and s["round1_low"] < 0.75 < s["round1_high"]


def test_the_bar_passes_at_its_boundary_and_not_above(tmp_path):
    table = marginal_table()
    better = {t: ([1, 1, 1, 1] if t.startswith("never") else v) for t, v in table.items()}
    write_run(tmp_path, "r1", {"base": table, "new": better})
    outcomes, base, new = load_pair("r1:base", "r1:new", [], tmp_path)
    low = build_comparison(outcomes, base, new, FAST).data["paired"]["all tasks"][1]["interval"][0]
    at = build_comparison(outcomes, base, new, FAST.model_copy(update={"bar": low}))
    assert at.verdict == "PASS" and f"the lower bound {low:.2f} is at least" in at.lead[1]
    assert at.lead[0].startswith("Bar given at compare time, not registered before the run (post hoc): NEW must gain")
    above = build_comparison(outcomes, base, new, FAST.model_copy(update={"bar": low + 1e-6}))
    assert above.verdict == "FAIL"


def test_no_task_can_reach_significance_is_said_in_one_line(tmp_path):
    table = marginal_table()
    worse = dict(table, **{"always-00": [None] * 4})
    write_run(tmp_path, "r1", {"base": table, "new": worse})
    outcomes, base, new = load_pair("r1:base", "r1:new", [], tmp_path)
    doc = build_comparison(outcomes, base, new, FAST)
    line = next(w for w in doc.warnings if w.startswith("No task can reach significance"))
    assert "smallest p-value one task can have is 0.0286" in line and "7 trials per configuration would be needed" in line
    per_task = _table(doc, "Per task")
    assert {r[per_task.columns.index("min p (2r)")] for r in per_task.rows} == {"0.029"}
    assert doc.data["task_power"]["trials_needed"] == 7


def test_selected_cohorts_say_what_selection_did(tmp_path):
    write_run(tmp_path, "r1", {"base": marginal_table(), "new": marginal_table()})
    outcomes, base, new = load_pair("r1:base", "r1:new", [], tmp_path)
    doc = build_comparison(outcomes, base, new, FAST.model_copy(update={"cohort": 1, "round": 1}))
    note = next(n for n in doc.notes if n.startswith("Selected cohort"))
    assert "ranked by tasks solved in round 1" in note and "not valid for a selected cohort" in note
    # best of 4 trials in round 1: trial 1 solves 12 tasks against a mean of 11.25
    assert doc.data["cohort"]["inflation"] == {"base": pytest.approx(0.75), "new": pytest.approx(0.75)}
    diff = _table(doc, "Difference")
    assert all(r[6].endswith(" *") and r[7].endswith(" *") for r in diff.rows)
    assert all(not d["p_value_valid"] for d in doc.data["paired"]["all tasks"])
    result = runner.invoke(app, ["compare", "r1:base", "r1:new", "--runs-dir", str(tmp_path), "--cohort", "best:1",
                                 "--pre-registered-bar", "0"])
    assert result.exit_code == 2 and "cannot be judged on a selected cohort" in result.output
    assert len(result.output.strip().splitlines()) == 1


def test_pass_at_k_shows_how_many_tasks_each_column_uses(tmp_path):
    outcomes_table({"m": {"a": [1, None, 1, None], "b": [None, None]}}).to_csv(tmp_path / "o.csv", index=False)
    doc = build_report(load([("auto", str(tmp_path / "o.csv"))]), FAST)
    table = _table(doc, "Unbiased pass@k")
    assert table.columns[2:] == ["pass@1", "pass@2", "pass@3", "pass@4"]
    assert table.rows[0][2:] == ["25.0% (2)", "41.7% (2)", "100.0% (1)", "100.0% (1)"]


def test_settings_that_differ_inside_one_configuration_are_noted(tmp_path):
    path = tmp_path / "o.csv"
    path.write_text("config,task,trial,round1,round2,contract,rounds\n"
                    "m,a,1,1,1,original,2\nm,a,2,0,1,fixed26-contract,2\nm,b,1,0,0,original,1\n")
    doc = build_report(load([("auto", str(path))]), FAST)
    notes = "\n".join(doc.notes)
    assert "Not like for like inside m: its trials differ in prompt contract: fixed26-contract; original" in notes
    assert "Not like for like inside m: its trials differ in rounds: 1; 2" in notes


def test_aider_versions_mixed_inside_an_imported_folder_are_noted(tmp_path):
    for stamp, commit in (("2025-01-01-10-00-00", "abc1234"), ("2025-01-02-10-00-00", "def5678")):
        folder = tmp_path / f"{stamp}--qwen" / "bob"
        folder.mkdir(parents=True)
        (folder / ".aider.results.json").write_text(json.dumps(
            {"testcase": "bob", "tests_outcomes": [True], "commit_hash": commit, "edit_format": "whole"}))
    doc = build_report(load([("aider", str(tmp_path))]), FAST)
    assert "Not like for like inside qwen: its trials differ in Aider version: abc1234; def5678" in doc.notes


def test_a_one_round_run_beside_a_two_round_run(tmp_path):
    write_run(tmp_path, "one", {"single": {"a": [1, None], "b": [None, None]}}, rounds=1)
    write_run(tmp_path, "two", {"double": {"a": [1, 2], "b": [None, 2]}})
    doc = build_report(load([("auto", "one"), ("auto", "two")], tmp_path), FAST)
    assert "Not like for like: the configs differ in rounds: single: 1; double: 2" in doc.notes
    rows = {r[0]: r for r in doc.tables[0].rows}
    assert rows["single"][5] == "n/a (no two-round outcome)" and rows["single"][7] == "n/a"
    assert rows["double"][7] == "2/3 (66.7%)"


def test_one_configuration_with_nothing_to_compare_gets_no_like_for_like_note(tmp_path):
    write_run(tmp_path, "r1", {"m": marginal_table()})
    doc = build_report(load([("auto", "r1")], tmp_path), FAST)
    assert not any(n.startswith(("Not like", "The ")) for n in doc.notes)


def test_an_unknown_training_set_is_never_called_unseen(tmp_path):
    write_run(tmp_path, "r1", {"base": marginal_table(), "lora": marginal_table()},
              configs={"lora": dict(adapter="lora-1")})   # a card that lists no training tasks
    doc = build_report(load([("auto", "r1")], tmp_path), FAST)
    assert not any(len(r) > 1 and r[1] == "unseen in training" for r in doc.tables[0].rows)
    assert any(n.startswith("Training set unknown: lora (adapter lora-1)") and "no task is claimed unseen" in n
               for n in doc.notes)
    assert doc.data["training_unknown"] == ["lora"]


def test_a_lineage_from_an_adapter_with_an_unknown_training_set(tmp_path):
    """Iteration 0 is an adapter whose card lists no training set; iteration 1 trained on
    task a. Task b may have been in the starting adapter's training: it is not "unseen"."""
    write_run(tmp_path, "e0", {"start": {"a": [None] * 4, "b": [1] * 4}}, configs={"start": dict(adapter="start")})
    write_run(tmp_path, "e1", {"it1": {"a": [1] * 4, "b": [1] * 4}},
              configs={"it1": dict(adapter="it1", trained_on_tasks=["fixed26/a"])})
    lineage = Lineage(
        loop_id="L", created_at=STAMP, updated_at=STAMP, status="finished",
        config=LoopConfig(suite="fixed26", base="b", init_adapter="start", iterations=1, trials=4),
        iterations=[Iteration(index=0, adapter="start", eval_run="e0", done=["eval"], started_at=STAMP),
                    Iteration(index=1, adapter="it1", parent="start", eval_run="e1", trained_on_tasks=["fixed26/a"],
                              done=["curriculum", "train", "eval"], started_at=STAMP)])
    doc = build_lineage(lineage, tmp_path, FAST)
    scopes = {r[1] for r in doc.tables[1].rows}
    assert "unseen in training" not in scopes and "seen in training (at least)" in scopes
    per_task = {r[0]: r for r in doc.tables[0].rows}
    assert per_task["a"][1] == "at least" and per_task["b"][1] == "unknown"
    assert doc.data["training_unknown"] == ["start", "it1"]
    # The data written is the lineage's typed result, the first checkpoint against the last included.
    back = LineageResult.model_validate(json.loads(render_json(doc))["data"])
    assert back.first_to_last is not None and back.first_to_last.base == "start" and back.training_unknown == ["start", "it1"]


def test_interval_targets_are_named_and_differ(tmp_path):
    write_run(tmp_path, "r1", {"m": marginal_table()})
    bodies = {}
    for target in ("tasks", "trials"):
        code, body, output = _invoke_json(["report", "r1", "--runs-dir", str(tmp_path), "--interval", target],
                                          tmp_path, f"{target}.json")
        assert code == 0, output
        bodies[target] = body
        assert body["data"]["interval"]["about"] == stats.TARGETS[target]
        assert any(n.startswith(f"95% intervals for {stats.TARGETS[target]}") for n in body["notes"])
    width = {t: b["data"]["summaries"][0]["round1_high"] - b["data"]["summaries"][0]["round1_low"]
             for t, b in bodies.items()}
    assert width["trials"] < width["tasks"]  # fixed tasks leave out the spread between tasks
    result = runner.invoke(app, ["report", "r1", "--runs-dir", str(tmp_path), "--interval", "suites"])
    assert result.exit_code == 2 and len(result.output.strip().splitlines()) == 1


def test_the_json_report_holds_what_a_coverage_check_needs(tmp_path):
    """A simulated 3-task suite fed to `harness report --format json`: the interval there is
    the one harness.stats computes for the same counts, with its target and the warning."""
    rng = np.random.default_rng(5)
    c = rng.binomial(4, [0.2, 0.5, 0.9])
    rows = [dict(config="m", task=f"t{i}", trial=k, round1=k <= ci, round2=k <= ci)
            for i, ci in enumerate(c) for k in range(1, 5)]
    pd.DataFrame(rows).to_csv(tmp_path / "sim.csv", index=False)
    code, body, output = _invoke_json(["report", "--outcomes", str(tmp_path / "sim.csv")], tmp_path)
    assert code == 0, output
    (s,) = body["data"]["summaries"]
    expected = stats.total_interval(np.full(3, 4), c, "tasks", 2_000, seed=0)
    assert (s["round1_low"], s["round1_high"]) == pytest.approx(expected)
    assert s["interval_target"] == "tasks" and s["interval_valid"] is True
    assert any("unreliable below 8 tasks (here 3)" in w for w in body["warnings"])


def test_plan_trials(tmp_path):
    write_run(tmp_path, "r1", {"base": marginal_table()})
    code, body, output = _invoke_json(["plan-trials", "--baseline", "r1:base", "--effect", "4", "--runs-dir",
                                       str(tmp_path), "--simulations", "200"], tmp_path, resamples=False)
    assert code == 0, output
    needed = body["data"]["trials_needed"]
    assert isinstance(needed, int) and needed >= 1
    powers = {p["trials"]: p["power"] for p in body["data"]["points"]}
    assert powers[needed] >= 0.8 and all(p < 0.8 for t, p in powers.items() if t < needed)
    assert body["lead"][0].startswith(f"{needed} trials per task (both configurations) detect a gain of 4 tasks")
    result = runner.invoke(app, ["plan-trials", "--baseline", "r1:base", "--effect", "20", "--runs-dir", str(tmp_path)])
    assert result.exit_code == 2 and "can gain at most 10.75 tasks" in result.output


def test_the_viewer_grid_shows_a_round_2_fault_and_counts_round_1(tmp_path):
    from fastapi.testclient import TestClient

    from harness.view.server import create_app
    from harness.view.site import load_site

    write_run(tmp_path, "r1", {"m": {"a": [1, 1, "fault2", None]}})
    page = TestClient(create_app(load_site(["r1"], tmp_path))).get("/index.html").text
    assert 'class="t x"' in page and "r1 2/4 · 2r 2/3" in page
