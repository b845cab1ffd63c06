"""`harness report` and `harness compare` end to end on run folders written like the
runner's: the numbers, the computed notes, the labels, and every output format."""

from __future__ import annotations

import base64
import json
import re
from pathlib import Path

import jsonschema
import pandas as pd
import pytest
from typer.testing import CliRunner

from harness.cli import app
from harness.outcomes import load, load_pair
from harness.report import ReportOptions, build_comparison, build_report
from harness.report.data import REPORT_DATA
from harness.report.writing import output_path, reports_dir
from tests.report_support import marginal_table, outcomes_table, write_run

runner = CliRunner()
ROOT = Path(__file__).resolve().parents[2]
FAST = ReportOptions(resamples=2_000)


def _improved() -> dict[str, list]:
    """The marginal table with the 10 never-solved tasks now solved in round 1 every time,
    and one always-solved task lost."""
    table = {t: ([1, 1, 1, 1] if t.startswith("never") else v) for t, v in marginal_table().items()}
    table["always-00"] = [None, None, None, None]
    return table


@pytest.fixture()
def runs(tmp_path):
    write_run(tmp_path, "r1", {"base": marginal_table(), "lora": _improved()},
              configs={"lora": dict(adapter="lora-1", trained_on_tasks=["never-00", "never-01", "not-in-suite"])})
    return tmp_path


def test_a_held_out_pool_splits_every_headline_number_into_seen_and_unseen(tmp_path):
    unseen = [t for t in marginal_table() if t.startswith("never")]
    write_run(tmp_path, "pool", {"base": marginal_table(), "new": _improved()}, unseen_tasks=unseen)
    doc = build_report(load([("auto", "pool")], tmp_path), FAST)
    rows = {(r[0], r[1]): r for r in doc.tables[0].rows}
    assert rows[("new", "unseen pool")][2] == "10" and rows[("new", "unseen pool")][4] == "10.00 (100.0%)"
    assert rows[("new", "seen pool")][2] == "16" and rows[("base", "unseen pool")][4] == "0.00 (0.0%)"
    assert any(n.startswith("Held-out pool: 10 of the 26 tasks are declared unseen") for n in doc.notes)
    assert doc.data["unseen_pool"] == sorted(unseen)
    pair, b, n = load_pair("pool:base", "pool:new", [], tmp_path)
    cmp = build_comparison(pair, b, n, FAST.model_copy(update={"bar": 1.0}))
    gains = {(r[0], r[1]): r[5] for r in cmp.tables[1].rows}
    assert gains[("unseen pool", "round 1")] == "+10.00" and cmp.lead[2].startswith(
        "On the tasks their suite declares unseen (declared only, not every one backed by dates): gain +10.00")


def test_a_metric_of_written_suites_on_repair_runs_is_bad_input(runs):
    result = runner.invoke(app, ["compare", "base", "lora", "--from", "r1", "--runs-dir", str(runs),
                                 "--metric", "kill_rate", "--pre-registered-bar", "0.1"])
    assert result.exit_code == 2 and "neither base nor lora writes test suites" in result.stderr
    result = runner.invoke(app, ["compare", "base", "lora", "--from", "r1", "--runs-dir", str(runs), "--metric", "speed"])
    assert result.exit_code == 2 and "--metric" in result.stderr


def test_report_headline_numbers_and_notes(runs):
    doc = build_report(load([("auto", "r1")], runs), FAST)
    headline = doc.tables[0]
    rows = {(r[0], r[1]): r for r in headline.rows}
    base = rows[("base", "all tasks")]
    assert base[2:5] == ["26", "4", "11.25 (43.3%)"] and base[6] == "15.25 (58.7%)" and base[8] == "16/59 (27.1%)"
    lora = rows[("lora", "all tasks")]
    assert lora[4] == "20.25 (77.9%)" and lora[8] == "16/23 (69.6%)"  # (45 - 4 + 40) / 4; 104 - 81 fail
    # numbers shown twice: the 24 tasks neither config was trained on
    unseen = rows[("lora", "unseen in training")]
    assert unseen[2] == "24" and unseen[4] == "18.25 (76.0%)"
    assert any("lora (adapter lora-1) was trained on 2 of the 26 tasks: never-00, never-01" in n for n in doc.notes)
    assert any(n.startswith("95% intervals for a new draw of tasks like these, each run for new trials")
               and "2,000 resamples" in n for n in doc.notes)
    # the interval holds the mean
    low, high = (float(x) for x in re.findall(r"[\d.]+", base[5]))
    assert low < 11.25 < high
    assert not any(n.startswith("Not like") for n in doc.notes)


def test_scope_notes_name_what_differs(tmp_path):
    write_run(tmp_path, "r1", {"base": {"a": [1, None, 1, 1], "b": [2, 2, None, None]}})
    write_run(tmp_path, "r2", {"new": {"a": [1, 1], "b": [1, 1]}},
              configs={"new": dict(contract="fixed26-contract", contract_hash="d" * 64, aider_version="0.85.0",
                                   sampling={"temperature": 0.7, "top_p": 0.9}, agent_hash="e" * 64)},
              suite_hash="t" * 64, task_hashes={"a": "a" * 64, "b": "x" * 64})
    doc = build_report(load([("auto", "r1"), ("auto", "r2")], tmp_path), FAST)
    notes = "\n".join(doc.notes)
    assert "differ in prompt contract: base: original (cccccccccccc); new: fixed26-contract (dddddddddddd)" in notes
    assert "differ in suite" in notes and "differ in agent profile" in notes
    assert "differ in Aider version: base: 0.86.2; new: 0.85.0" in notes
    assert "differ in trial count: base: 4; new: 2" in notes
    assert "differ in sampling settings: base: temperature=0.0; new: temperature=0.7, top_p=0.9" in notes
    assert "task content differs between configs for 1 task: b" in notes


def test_scope_notes_say_what_a_source_did_not_record(tmp_path):
    write_run(tmp_path, "r1", {"base": {"a": [1, 1], "b": [None, 2]}})
    outcomes_table({"csv": {"a": [1, 1], "b": [2, 2]}}).to_csv(tmp_path / "o.csv", index=False)
    doc = build_report(load([("auto", "r1"), ("auto", str(tmp_path / "o.csv"))], tmp_path), FAST)
    assert "The prompt contract is not recorded for csv, so it cannot be checked." in doc.notes
    assert "The Aider version is not recorded for csv, so it cannot be checked." in doc.notes


def test_unfinished_trials_are_reported_not_failed(tmp_path):
    write_run(tmp_path, "r1", {"base": {"a": [1, "infra", 1, "skip"], "b": ["infra", "infra", "skip", "skip"],
                                        "c": [None, 2, 2, 2]}})
    doc = build_report(load([("auto", "r1")], tmp_path), FAST)
    assert ("base: 6 of 12 task-trials have no outcome (3 infrastructure errors, 3 never written); they are not "
            "counted as failures, and each task's rate uses its counted trials.") in doc.notes
    assert "base: left out, no counted trial: b" in doc.notes
    assert doc.tables[0].rows[0][1:4] == ["2", "4", "1.00 (50.0%)"]  # a: 2/2, c: 0/4
    states = doc.tables[2]
    assert states.title == "Task-trials by state [harness accounting]"
    assert states.rows[0] == ["base", "12", "5", "1", "0", "3", "3"]


def test_cohort_is_named_in_every_table_and_plot(tmp_path):
    write_run(tmp_path, "r1", {"base": {"a": [1, None, 2, None], "b": [1, None, None, 1], "c": [None, None, 2, None]}})
    doc = build_report(load([("auto", "r1")], tmp_path), ReportOptions(resamples=2_000, cohort=2))
    assert all(t.caption.startswith("selected cohort") for t in doc.tables)
    assert all("(selected cohort)" in p.title for p in doc.plots)
    assert any(n.startswith("Selected cohort: best 2 of 4 trials, ranked by tasks solved within two rounds") for n in doc.notes)
    # intervals are marked as not valid, in the table and in JSON
    assert doc.tables[0].rows[0][4].endswith(" *") and doc.data["interval"]["valid"] is False
    assert doc.data["summaries"][0]["interval_valid"] is False
    # trial totals within two rounds: 2, 0, 2, 1; trials 1 and 3 tie at 2 and both stay
    # (the tie-break by round 1, 2 against 0, would only matter for best:1).
    # Round 1 on trials 1 and 3: a 1/2, b 1/2, c 0/2.
    assert doc.tables[0].rows[0][1:4] == ["3", "2", "1.00 (33.3%)"]
    one = build_report(load([("auto", "r1")], tmp_path), ReportOptions(resamples=2_000, cohort=1))
    assert one.tables[0].rows[0][1:4] == ["3", "1", "2.00 (66.7%)"]  # trial 1: a and b in round 1


def test_compare_per_task_labels_and_recovery(runs):
    outcomes, base, new = load_pair("r1:base", "r1:lora", [], runs)
    doc = build_comparison(outcomes, base, new, FAST)
    per_task = next(t for t in doc.tables if t.title.startswith("Per task"))
    col = {c: i for i, c in enumerate(per_task.columns)}
    rows = {r[0]: r for r in per_task.rows}
    # the one regression (4/4 -> 0/4) does not survive Holm over 26 tasks: 26 * 2/70 > 0.05
    assert per_task.rows[0][0] == "always-00"
    assert rows["always-00"][col["label (2r)"]] == "regression (n.s.)"
    assert rows["always-00"][col["change (2r)"]] == "-4"
    assert rows["never-03"][col["label (2r)"]] == "gain (n.s.)" and rows["never-03"][col["base 2r"]] == "0/4"
    assert rows["fixed-0"][col["label (2r)"]] == "no change"
    assert rows["fixed-once"][col["recovered base"]] == "1/4" and rows["fixed-once"][col["recovered lora"]] == "1/4"
    assert rows["never-00"][col["trained on"]] == "yes"
    recovery = next(t for t in doc.tables if t.title.startswith("Recovery"))
    assert recovery.rows == [["all tasks", "16/59 (27.1%)", "16/23 (69.6%)"],
                             ["unseen in training", "16/51 (31.4%)", "16/23 (69.6%)"]]
    diff = next(t for t in doc.tables if t.title.startswith("Difference"))
    # +10 never-solved tasks now always solved, -1 always-solved task lost; two of the ten
    # are in the training set
    assert diff.rows[1][:6] == ["all tasks", "two rounds", "26", "15.25", "24.25", "+9.00"]
    assert diff.rows[3][:6] == ["unseen in training", "two rounds", "24", "15.25", "22.25", "+7.00"]


def test_compare_with_enough_trials_calls_a_regression_significant(tmp_path):
    tasks = {f"t{i}": [1] * 12 for i in range(5)}
    worse = dict(tasks, t0=[None] * 12)
    write_run(tmp_path, "r1", {"base": tasks, "new": worse})
    outcomes, base, new = load_pair("r1:base", "r1:new", [], tmp_path)
    per_task = build_comparison(outcomes, base, new, FAST).tables[2]
    assert per_task.rows[0][0] == "t0"
    assert per_task.rows[0][per_task.columns.index("label (2r)")] == "regression"  # p = 2/C(24,12), x5 tasks


def test_a_compare_time_bar_is_stated_before_the_numbers_and_called_post_hoc(runs):
    result = runner.invoke(app, ["compare", "r1:base", "r1:lora", "--runs-dir", str(runs),
                                 "--pre-registered-bar", "1", "--resamples", "2000"])
    assert result.exit_code == 0, result.output
    text = result.stdout
    assert text.index("not registered before the run (post hoc): NEW must gain at least 1 tasks") < text.index("20.25")
    assert "Pre-registered" not in text
    assert "PASS: gain +9.00 tasks" in text
    result = runner.invoke(app, ["compare", "r1:base", "r1:lora", "--runs-dir", str(runs),
                                 "--pre-registered-bar", "9", "--resamples", "2000"])
    assert result.exit_code == 1 and "FAIL: gain +9.00 tasks" in result.stdout


# --- every output format, through the command line ---------------------------------------


def test_terminal_report(runs):
    result = runner.invoke(app, ["report", "r1", "--runs-dir", str(runs), "--resamples", "2000"])
    assert result.exit_code == 0, result.output
    for text in ("11.25 (43.3%)", "15.25 (58.7%)", "16/59 (27.1%)", "pass@4", "Agent health",
                 "2,000 resamples with seed 0"):
        assert text in result.stdout


def test_markdown_report_with_plot_files(runs, tmp_path):
    out = tmp_path / "out" / "r.md"
    result = runner.invoke(app, ["report", "r1", "--runs-dir", str(runs), "--out", str(out), "--resamples", "2000"])
    assert result.exit_code == 0, result.output
    text = out.read_text()
    assert "| base | all tasks | 26 | 4 | 11.25 (43.3%) |" in text
    # text columns left, number columns right
    assert "| config | tasks in | N | T |" in text and "|---|---|---:|---:|" in text
    for name in ("solved", "tasks"):
        assert "![" in text and f"(r-{name}.png)" in text
        assert (out.parent / f"r-{name}.png").read_bytes().startswith(b"\x89PNG\r\n\x1a\n")


def test_html_report_embeds_its_plots_and_links_the_pages_beside_it(runs, tmp_path):
    out = tmp_path / "c.html"
    result = runner.invoke(app, ["compare", "r1:base", "r1:lora", "--runs-dir", str(runs), "--format", "html",
                                 "--out", str(out), "--resamples", "2000"])
    assert result.exit_code == 0, result.output
    page = out.read_text()
    images = re.findall(r"src='data:image/png;base64,([A-Za-z0-9+/=]+)'", page)
    # the bars and a heatmap per round (both rounds are labelled without --round)
    assert len(images) == 3 and all(base64.b64decode(i).startswith(b"\x89PNG") for i in images)
    assert not re.search(r"src=['\"](?!data:)", page)  # nothing fetched from elsewhere
    assert "regression (n.s.)" in page and "16/59 (27.1%)" in page
    # every link leads to a page written beside the report: the comparison, each changed task
    links = re.findall(r"href='([^']+)'", page)
    assert links and all(link.startswith("c.pages/") and (tmp_path / link).is_file() for link in links)
    assert "c.pages/compare/base/lora/task-always-00.html" in links
    assert sorted(p.name for p in tmp_path.iterdir()) == ["c.html", "c.pages", "r1"]


def test_json_report(runs, tmp_path):
    out = tmp_path / "r.json"
    result = runner.invoke(app, ["report", "r1", "--runs-dir", str(runs), "--out", str(out), "--resamples", "2000"])
    assert result.exit_code == 0, result.output
    body = json.loads(out.read_text())
    base = next(s for s in body["data"]["summaries"] if s["config"] == "base" and s["tasks_in"] == "all tasks")
    assert base["round1_mean"] == 11.25 and base["recovered"] == 16 and base["first_round_failures"] == 59
    # the trials per task, not the finished task-trials (the transitions table's count, kept apart)
    assert base["trials"] == 4 and base["finished_trials"] == 104
    assert body["data"]["pass_at_k"]["base"]["round1"]["1"] == {"value": pytest.approx(11.25 / 26), "tasks": 26}
    assert body["data"]["interval"]["target"] == "tasks" and body["data"]["interval"]["valid"] is True
    assert body["data"]["warnings"] == [] and base["round1_low"] < 11.25 < base["round1_high"]
    assert body["data"]["training_overlap"] == ["never-00", "never-01"]
    assert body["tables"][0]["rows"][0][4] == "11.25 (43.3%)"


@pytest.mark.parametrize("command, name", [
    (["report", "r1"], "report-data"),
    (["compare", "r1:base", "r1:lora", "--pre-registered-bar", "1"], "compare-data"),
    (["compare", "r1:base", "r1:lora", "--cohort", "best:2", "--round", "1"], "compare-data"),
    (["plan-trials", "--baseline", "r1:base", "--effect", "4", "--simulations", "100"], "plan-data"),
])
def test_a_written_json_report_reads_back_as_its_result_model_and_its_schema(runs, tmp_path, command, name):
    """`data` is the dump of the report's typed result: it validates against the model it
    came from (NaN, written as null, reads back) and the schema `harness schema` prints."""
    out = tmp_path / "r.json"
    result = runner.invoke(app, [*command, "--runs-dir", str(runs), "--out", str(out)]
                           + (["--resamples", "200"] if command[0] != "plan-trials" else []))
    assert result.exit_code == 0, result.output
    data = json.loads(out.read_text())["data"]
    assert REPORT_DATA[name][1].model_validate(data).model_dump(mode="json").keys() == data.keys()
    jsonschema.validate(data, json.loads(runner.invoke(app, ["schema", name]).stdout))


def test_csv_compare(runs, tmp_path):
    out = tmp_path / "c.csv"
    result = runner.invoke(app, ["compare", "r1:base", "r1:lora", "--runs-dir", str(runs), "--round", "1",
                                 "--out", str(out), "--resamples", "2000"])
    assert result.exit_code == 0, result.output
    table = pd.read_csv(out)
    assert len(table) == 26 and table["round"].eq(1).all()
    row = table.set_index("task").loc["always-00"]
    assert (row["base_round1"], row["new_round1"], row["label"]) == (4, 0, "regression (n.s.)")


def test_compare_from_an_outcomes_file_by_config_name(tmp_path):
    outcomes_table({"base": marginal_table(), "lora": _improved()}).to_parquet(tmp_path / "o.parquet")
    result = runner.invoke(app, ["compare", "base", "lora", "--outcomes", str(tmp_path / "o.parquet"),
                                 "--resamples", "2000"])
    assert result.exit_code == 0, result.output
    assert "regression (n.s.)" in result.stdout


def test_default_output_goes_to_the_checkout_reports_folder(runs):
    assert reports_dir() == ROOT / "reports"
    doc = build_report(load([("auto", "r1")], runs), FAST)
    path = output_path(doc, "html", None)
    assert path.parent == ROOT / "reports" and re.fullmatch(r"report-\d{8}-\d{6}\.html", path.name)


def test_a_config_with_no_finished_trial_keeps_its_row(tmp_path):
    write_run(tmp_path, "r1", {"ok": {"a": [1, 1]}, "down": {"a": ["infra", "skip"]}})
    doc = build_report(load([("auto", "r1")], tmp_path), FAST)
    assert doc.tables[0].rows[1][:4] == ["down", "0", "0", "no counted trial"]
    assert "down: left out, no counted trial: a" in doc.notes
