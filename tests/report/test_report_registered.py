"""compare and a bar registered before the run: the registered bar is the one judged, with
when it was registered against the first trials; a compare-time bar that differs, a
registration changed after it was written, or configs other than the bar's are refused in
one line; a bar given only at compare time is called post hoc."""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone

import pytest
from typer.testing import CliRunner

from harness.cli import app
from harness.records import RunRegistration
from harness.registered_bar import register
from tests.report_support import STAMP, marginal_table, write_run

runner = CliRunner()
FIRST_TRIAL = datetime.fromisoformat(STAMP)  # every trial write_run writes started then
OUTCOMES = {"base": marginal_table(),
            "new": {t: ([1, 1, 1, 1] if t.startswith("never") else v) for t, v in marginal_table().items()}}


def _registered(delta: float = 1.0, base: str = "base", new: str = "new", metric="solved", round_no: int = 2,
                before: timedelta = timedelta(days=1)) -> RunRegistration:
    reg = register(metric, base, new, delta, round_no, "new solves the tasks base never does", now=FIRST_TRIAL - before)
    return RunRegistration(registration=reg, path="/bars/bar.json", recorded_at=STAMP)


def _compare(runs, *extra: str):
    return runner.invoke(app, ["compare", "r1:base", "r1:new", "--runs-dir", str(runs), "--resamples", "2000", *extra])


def _one_line_exit_2(result, *words: str) -> None:
    assert result.exit_code == 2, result.output
    line = result.output.strip()
    assert "\n" not in line and "Traceback" not in line and all(w in line for w in words), line


@pytest.fixture
def registered_run(tmp_path):
    write_run(tmp_path, "r1", OUTCOMES, preregistered=_registered())
    return tmp_path


def test_compare_judges_the_registered_bar_and_says_it_came_before_the_first_trial(registered_run):
    result = _compare(registered_run)
    assert result.exit_code == 0, result.output
    text = " ".join(result.stdout.split())
    registered_at = (FIRST_TRIAL - timedelta(days=1)).isoformat(timespec="milliseconds")
    assert f"registered at {registered_at}, before the first trial of new at {STAMP}" in text
    assert "checked" in text and "Registered bar: NEW must gain at least 1 tasks within two rounds" in text
    assert "PASS: gain" in text and "post hoc" not in text and "Pre-registered" not in text


def test_the_registration_is_in_the_json_report(registered_run, tmp_path):
    out = tmp_path / "c.json"
    assert _compare(registered_run, "--format", "json", "--out", str(out)).exit_code == 0
    data = json.loads(out.read_text())["data"]
    assert data["registered_bar"]["registration"]["bar"]["delta"] == 1.0 and data["bar_post_hoc"] is False
    assert data["verdict"] == "PASS"


def test_the_same_bar_again_at_compare_time_is_accepted(registered_run):
    assert _compare(registered_run, "--pre-registered-bar", "1").exit_code == 0


@pytest.mark.parametrize("extra, words", [
    (["--pre-registered-bar", "0.5"], ["--pre-registered-bar 0.5", "is 1"]),
    (["--round", "1"], ["--round 1", "within two rounds"]),
    (["--cohort", "best:2"], ["selected cohort"]),
])
def test_a_compare_time_bar_that_differs_from_the_registered_one_is_refused(registered_run, extra, words):
    _one_line_exit_2(_compare(registered_run, *extra), *words)


def test_a_bar_given_only_at_compare_time_is_called_post_hoc(tmp_path):
    write_run(tmp_path, "r1", OUTCOMES)
    result = _compare(tmp_path, "--pre-registered-bar", "1")
    assert result.exit_code == 0, result.output
    text = " ".join(result.stdout.split())
    assert "Bar given at compare time, not registered before the run (post hoc): NEW must gain" in text
    assert "Registered bar" not in text and "Pre-registered" not in text


def test_a_registration_changed_in_the_manifest_is_refused(tmp_path):
    reg = _registered()
    tampered = reg.model_copy(update={"registration": reg.registration.model_copy(
        update={"bar": reg.registration.bar.model_copy(update={"delta": 0.1})})})
    write_run(tmp_path, "r1", OUTCOMES, preregistered=tampered)
    _one_line_exit_2(_compare(tmp_path), "does not match its hash")


def test_configs_other_than_the_bars_are_refused(tmp_path):
    write_run(tmp_path, "r1", OUTCOMES, preregistered=_registered(base="new", new="base"))
    result = runner.invoke(app, ["compare", "r1:new", "r1:base", "--runs-dir", str(tmp_path), "--resamples", "2000"])
    assert result.exit_code == 1 and "FAIL" in result.stdout, result.output  # judged, in the bar's own order
    _one_line_exit_2(_compare(tmp_path), "compares BASE new with NEW base")


def test_a_bar_registered_after_the_first_trial_is_refused(tmp_path):
    write_run(tmp_path, "r1", OUTCOMES, preregistered=_registered(before=-timedelta(seconds=1)))
    _one_line_exit_2(_compare(tmp_path), "not before", "first trial")


def test_a_metric_other_than_the_registered_one_is_refused(tmp_path):
    write_run(tmp_path, "r1", OUTCOMES, preregistered=_registered())
    _one_line_exit_2(_compare(tmp_path, "--metric", "kill_rate"), "--metric kill_rate")


def test_registered_times_are_utc():
    reg = register("solved", "a", "b", 1.0, now=datetime(2026, 1, 1, 12, tzinfo=timezone(timedelta(hours=2))))
    assert reg.bar.registered_at == "2026-01-01T10:00:00.000+00:00"


def test_other_configs_of_a_registered_run_are_compared_without_its_bar(tmp_path):
    write_run(tmp_path, "r1", {**OUTCOMES, "other": OUTCOMES["new"]}, preregistered=_registered())
    result = runner.invoke(app, ["compare", "r1:base", "r1:other", "--runs-dir", str(tmp_path), "--resamples", "2000",
                                 "--pre-registered-bar", "1"])
    assert result.exit_code == 0, result.output
    text = " ".join(result.stdout.split())
    assert "registered a bar of new against base (/bars/bar.json), not about this comparison" in text
    assert "(post hoc): NEW must gain" in text
    # The bar's NEW against another BASE is the bar's comparison with its baseline swapped.
    swapped = runner.invoke(app, ["compare", "r1:other", "r1:new", "--runs-dir", str(tmp_path), "--resamples", "2000"])
    _one_line_exit_2(swapped, "compares BASE base with NEW new")
