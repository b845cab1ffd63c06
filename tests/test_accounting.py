"""The two accounting views, and Aider's benchmark summary read back from its own results
files. Expected numbers are worked out by hand from Aider's summarize_results: a result
file is a completed test case unless it is empty or unreadable; it passed within try i if
its last try passed and it has at most i tries; pass_rate_i is 100 * passed / completed
printed with one decimal; percent_cases_well_formed is 1 - (cases with any malformed
response) / completed, in percent, one decimal."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from harness.outcomes import load, load_aider_folder
from harness.report import ReportOptions, build_comparison, build_report

from tests.conftest import ROOT
from tests.report_support import write_run

FAST = ReportOptions(resamples=200)

# (exercise, what its .aider.results.json holds)
AIDER_RESULTS = [
    ("a", {"tests_outcomes": [True]}),
    ("b", {"tests_outcomes": [False, True], "duration": 3.0}),
    ("c", {"tests_outcomes": [False, False], "num_malformed_responses": 2, "cost": 0.5}),
    ("d", {"exception": "Traceback (most recent call last): ..."}),
    ("e", {}),                                   # skipped by Aider's summary
    ("f", "{not json"),                          # skipped by Aider's summary
    ("g", {"tests_outcomes": [False, True], "num_malformed_responses": 1, "prompt_tokens": 100}),
    ("h", {"tests_outcomes": [True], "lazy_comments": 2, "num_user_asks": 1, "num_error_outputs": 3}),
    ("i", {"tests_outcomes": [False, False], "test_timeouts": 1, "completion_tokens": 40}),
    ("j", {"tests_outcomes": [False], "exception": "Traceback ..."}),  # raised after a failed try
]


# More languages beside AIDER_RESULTS's C++: the same exercise names (a, b) in three.
MORE_LANGUAGES = {
    "python": [("a", {"tests_outcomes": [False, True], "num_malformed_responses": 1}),
               ("b", {"tests_outcomes": [True], "duration": 2.0}),
               ("k", {"exception": "Traceback ..."}),
               ("m", "")],                       # skipped by Aider's summary
    "go": [("a", {"tests_outcomes": [True]}), ("n", {"tests_outcomes": [False, False], "test_timeouts": 2})],
}


def aider_folder(tmp_path: Path, languages: dict | None = None) -> Path:
    """Aider's layout: <run>/<language>/exercises/practice/<exercise>/.aider.results.json."""
    run = tmp_path / "aider" / "2025-06-01-10-00-00--my-model"
    for language, results in (languages or {"cpp": AIDER_RESULTS}).items():
        for name, data in results:
            folder = run / language / "exercises" / "practice" / name
            folder.mkdir(parents=True)
            text = data if isinstance(data, str) else json.dumps({"testcase": name, "model": "openai/x", **data} if data else {})
            (folder / ".aider.results.json").write_text(text)
    return tmp_path / "aider"


def test_an_aider_folder_reads_back_as_aiders_summary_printed_it(tmp_path):
    doc = build_report(load_aider_folder(aider_folder(tmp_path)), FAST.model_copy(update={"accounting": "aider"}))
    (row,) = doc.data["aider_summary"]
    # 8 completed (e and f skipped, d and j counted); passed within 1 try: a, h; within 2: a, b, g, h.
    assert row["test_cases"] == 8
    assert (row["pass_num_1"], row["pass_num_2"]) == (2, 4)
    assert (row["pass_rate_1"], row["pass_rate_2"]) == ("25.0", "50.0")
    assert row["percent_cases_well_formed"] == "75.0"   # c and g had malformed responses
    assert (row["num_malformed_responses"], row["num_with_malformed_responses"]) == (3, 2)
    assert (row["lazy_comments"], row["user_asks"], row["error_outputs"], row["test_timeouts"]) == (2, 1, 3, 1)
    assert (row["prompt_tokens"], row["completion_tokens"], row["total_cost"]) == (100, 40, "0.5000")
    assert row["seconds_per_case"] == "0.4"             # 3.0 s over 8 cases
    table = next(t for t in doc.tables if t.title.startswith("Aider's benchmark summary"))
    assert table.title.endswith("[aider accounting]") and table.rows[0][3:5] == ["25.0", "50.0"]


def test_the_views_differ_only_in_trials_aider_would_have_counted(tmp_path):
    # One config, five tasks, two trials; infrastructure errors of every kind, and one in round 2.
    run = write_run(tmp_path, "r1", {"m": {
        "t1": [1, "infra:agent"], "t2": [2, "infra:provider"], "t3": [None, "infra:sandbox"], "t4": [1, 1],
        "t5": ["fault2", 1]}})
    outcomes = load([("auto", str(run))])
    harness = build_report(outcomes, FAST)
    aider = build_report(outcomes, FAST.model_copy(update={"accounting": "aider"}))
    h, a = harness.data["summaries"][0], aider.data["summaries"][0]
    # harness: t1 1/1, t2 0/1 in round 1 (2: 1/1), t3 0/1, t4 2/2, t5 1/2 (2: 1/1, the faulted
    # round 2 unknown) -> round 1 = 1 + 0 + 0 + 1 + 0.5
    assert (h["round1_mean"], h["round2_mean"]) == (2.5, 4.0)
    # aider: the agent and provider errors are failed trials: t1 1/2, t2 0/2 (2: 1/2), t3 0/1, t4 2/2, t5 1/2
    assert (a["round1_mean"], a["round2_mean"]) == (2.0, 2.5)
    (row,) = aider.data["aider_summary"][-1:]
    assert row["trial"] is None and row["test_cases"] == 9 and row["pass_num_2"] == 5  # the sandbox error stays out
    for doc, view in ((harness, "harness"), (aider, "aider")):
        assert doc.data["accounting"] == view
        assert all(t.title.endswith(f"[{view} accounting]") for t in doc.tables)
        assert any(n.startswith(f"{view.capitalize()} accounting:") for n in doc.notes)
    assert not any(t.title.startswith("Aider's benchmark summary") for t in harness.tables)


def test_compare_counts_in_the_view_it_names(tmp_path):
    run = write_run(tmp_path, "r2", {"base": {"t1": [1, 1], "t2": [2, 2]}, "new": {"t1": [1, "infra:agent"], "t2": [2, 2]}})
    outcomes = load([("auto", str(run))])
    harness = build_comparison(outcomes, "base", "new", FAST)
    aider = build_comparison(outcomes, "base", "new", FAST.model_copy(update={"accounting": "aider"}))
    diff = lambda doc: doc.data["paired"]["all tasks"][0]["difference"]  # noqa: E731
    assert diff(harness) == 0.0 and diff(aider) == -0.5
    assert all(t.title.endswith("[aider accounting]") for t in aider.tables)


def test_the_cli_takes_the_view_and_refuses_others(tmp_path):
    harness = str(ROOT / ".venv" / "bin" / "harness")
    folder = aider_folder(tmp_path)
    out = tmp_path / "r.json"
    ok = subprocess.run([harness, "report", "--aider", str(folder), "--accounting", "aider", "--resamples", "200",
                         "--out", str(out)], capture_output=True, text=True)
    assert ok.returncode == 0, ok.stderr
    assert json.loads(out.read_text())["data"]["aider_summary"][0]["pass_rate_2"] == "50.0"
    bad = subprocess.run([harness, "report", "--aider", str(folder), "--accounting", "leaderboard"],
                         capture_output=True, text=True)
    assert bad.returncode == 2 and len(bad.stderr.strip().splitlines()) == 1 and "--accounting" in bad.stderr


def test_a_folder_of_several_languages_reads_back_per_language_as_aiders_summary_printed_it(tmp_path):
    """The figures Aider's summarize_results prints for this folder, whole and with
    --stats-languages cpp, python, go (benchmark.py --stats, run on it by hand)."""
    folder = aider_folder(tmp_path, {"cpp": AIDER_RESULTS, **MORE_LANGUAGES})
    outcomes = load_aider_folder(folder)
    assert {"cpp.a", "python.a", "go.a"} <= set(outcomes.frame["task"])
    doc = build_report(outcomes, FAST.model_copy(update={"accounting": "aider"}))
    keys = ("language", "test_cases", "pass_rate_1", "pass_rate_2", "pass_num_1", "pass_num_2",
            "percent_cases_well_formed", "num_malformed_responses", "test_timeouts", "seconds_per_case")
    assert [tuple(row[k] for k in keys) for row in doc.data["aider_summary"]] == [
        (None, 13, "30.8", "53.8", 4, 7, "76.9", 4, 3, "0.4"),
        ("cpp", 8, "25.0", "50.0", 2, 4, "75.0", 3, 1, "0.4"),
        ("go", 2, "50.0", "50.0", 1, 1, "100.0", 0, 2, "0.0"),
        ("python", 3, "33.3", "66.7", 1, 2, "66.7", 1, 0, "0.7"),
    ]
    table = next(t for t in doc.tables if t.title.startswith("Aider's benchmark summary"))
    assert [row[2] for row in table.rows] == ["all", "cpp", "go", "python"]


def test_a_run_over_several_languages_gets_aiders_figures_per_language(tmp_path):
    # Task names of a suite of several languages (suite.py: <language>.<exercise>).
    run = write_run(tmp_path, "poly", {"m": {"cpp.a": [1], "go.a": [2], "go.b": [None], "python.a": ["infra:agent"]}})
    doc = build_report(load([("auto", str(run))]), FAST.model_copy(update={"accounting": "aider"}))
    got = [(row["language"], row["test_cases"], row["pass_num_1"], row["pass_num_2"]) for row in doc.data["aider_summary"]]
    assert got == [(None, 4, 1, 2), ("cpp", 1, 1, 1), ("go", 2, 0, 1), ("python", 1, 0, 0)]
