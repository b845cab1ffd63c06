"""Report and compare split tasks by the configs' training cutoffs: every headline number is
also shown on the tasks written after every cutoff and on those before; an undated task is
never after; a pool declared unseen is said to be backed by dates or declared only."""

from __future__ import annotations

import datetime

from harness.outcomes import load, load_pair
from harness.report import ReportOptions, build_comparison, build_report
from tests.report_support import write_run

FAST = ReportOptions(resamples=2_000)
DAY = datetime.date
# base's cutoff is the earlier: "after" means after both.
CUTOFFS = {"base": {"training_cutoff": DAY(2024, 1, 1)}, "new": {"training_cutoff": DAY(2024, 6, 1)}}
OUTCOMES = {"base": {"late": [None, None], "mid": [1, None], "old": [1, 1], "undated": [None, None]},
            "new": {"late": [1, 1], "mid": [1, 1], "old": [1, 1], "undated": [1, 1]}}
# "mid" falls between the two cutoffs: new may have seen it, so it is not after.
WRITTEN = {"late": DAY(2024, 7, 1), "mid": DAY(2024, 3, 1), "old": DAY(2023, 1, 1)}


def _scopes(doc, key="summaries") -> set[str]:
    return {row["tasks_in"] for row in doc.data[key]} if key == "summaries" else set(doc.data[key])


def test_report_shows_headline_numbers_on_tasks_written_after_and_before_the_cutoff(tmp_path):
    write_run(tmp_path, "r1", OUTCOMES, configs=CUTOFFS, written=WRITTEN)
    doc = build_report(load([("auto", "r1")], tmp_path), FAST)
    assert {"all tasks", "written after cutoff", "written before cutoff"} <= _scopes(doc)
    assert doc.data["written_after_cutoff"] == ["late"]
    after = {r["config"]: r for r in doc.data["summaries"] if r["tasks_in"] == "written after cutoff"}
    assert (after["base"]["tasks"], after["base"]["round2_mean"], after["new"]["round2_mean"]) == (1, 0.0, 1.0)
    before = next(r for r in doc.data["summaries"] if r["tasks_in"] == "written before cutoff")
    assert before["tasks"] == 2  # mid and old; the undated task is in neither
    note = next(n for n in doc.notes if n.startswith("Training cutoffs"))
    assert "1 written after every one (after 2024-06-01), 2 on or before one, 1 undated" in note


def test_compare_splits_by_the_cutoff_and_states_the_bar_on_the_tasks_written_after(tmp_path):
    write_run(tmp_path, "r1", OUTCOMES, configs=CUTOFFS, written=WRITTEN)
    pair, b, n = load_pair("r1:base", "r1:new", [], tmp_path)
    cmp = build_comparison(pair, b, n, FAST.model_copy(update={"bar": 0.5}))
    assert {"written after cutoff", "written before cutoff"} <= _scopes(cmp, "paired")
    assert any(line.startswith("On the tasks written after every config's training cutoff: gain +1.00")
               for line in cmp.lead)


def test_an_undated_task_never_counts_as_written_after(tmp_path):
    write_run(tmp_path, "r1", OUTCOMES, configs=CUTOFFS, written={"old": DAY(2023, 1, 1)})
    doc = build_report(load([("auto", "r1")], tmp_path), FAST)
    assert doc.data["written_after_cutoff"] is None and "written after cutoff" not in _scopes(doc)


def test_no_task_is_after_a_cutoff_some_config_does_not_declare(tmp_path):
    write_run(tmp_path, "r1", OUTCOMES, configs={"base": CUTOFFS["base"]}, written=WRITTEN)
    doc = build_report(load([("auto", "r1")], tmp_path), FAST)
    assert doc.data["written_after_cutoff"] is None
    assert any("No training cutoff is declared for new" in n for n in doc.notes)


def test_an_unseen_pool_is_backed_by_dates_only_when_written_after_every_cutoff(tmp_path):
    write_run(tmp_path, "declared", OUTCOMES, configs=CUTOFFS, written=WRITTEN, unseen_tasks=["late", "undated"])
    write_run(tmp_path, "backed", OUTCOMES, configs=CUTOFFS, written=WRITTEN, unseen_tasks=["late"])
    declared = build_report(load([("auto", "declared")], tmp_path), FAST)
    assert declared.data["unseen_pool"] == ["late", "undated"] and declared.data["unseen_pool_backed"] == ["late"]
    assert any("Declared only, not backed by dates for 1 of them" in n for n in declared.notes)
    backed = build_report(load([("auto", "backed")], tmp_path), FAST)
    assert backed.data["unseen_pool_backed"] == ["late"]
    assert any("Backed by dates: each was written after every compared config's training cutoff" in n
               for n in backed.notes)


def test_a_task_declared_unseen_but_dated_before_a_cutoff_is_named(tmp_path):
    write_run(tmp_path, "r1", OUTCOMES, configs=CUTOFFS, written=WRITTEN, unseen_tasks=["mid"])
    pair, b, n = load_pair("r1:base", "r1:new", [], tmp_path)
    cmp = build_comparison(pair, b, n, FAST.model_copy(update={"bar": 0.5}))
    assert any("written on or before a compared config's training cutoff: mid" in n for n in cmp.notes)
    assert any(line.startswith("On the tasks their suite declares unseen (declared only") for line in cmp.lead)
