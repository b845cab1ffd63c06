"""`harness test` on bad input: one line naming what is wrong, exit code 2, no traceback;
and its JSON is a TestReport."""

from __future__ import annotations

import shutil

import pytest
from typer.testing import CliRunner

from harness.cli import app
from harness.records import TestReport

from tests.conftest import GOLDEN

runner = CliRunner()


def one_line_exit_2(result, expect: str) -> None:
    assert result.exit_code == 2, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and expect in lines[0], result.stderr
    assert "Traceback" not in result.output


def test_not_a_task_folder(tmp_path):
    one_line_exit_2(runner.invoke(app, ["test", str(tmp_path / "nowhere")]), "not a task folder")


def test_missing_config(tmp_path):
    task = tmp_path / "sum-of-squares"
    shutil.copytree(GOLDEN / "sum-of-squares", task)
    (task / ".meta" / "config.json").unlink()
    one_line_exit_2(runner.invoke(app, ["test", str(task)]), ".meta/config.json")


def test_unknown_sandbox():
    one_line_exit_2(runner.invoke(app, ["test", str(GOLDEN / "sum-of-squares"), "--sandbox", "vm"]), "unknown sandbox 'vm'")


def test_reference_and_solution_together():
    result = runner.invoke(app, ["test", str(GOLDEN / "sum-of-squares"), "--reference", "--solution", str(GOLDEN)])
    one_line_exit_2(result, "exclude each other")


@pytest.mark.slow
def test_json_is_a_test_report(local_sandbox):
    result = runner.invoke(app, ["test", str(GOLDEN / "sum-of-squares"), "--reference", "--sandbox", "local", "--json"])
    assert result.exit_code == 0, result.output
    report = TestReport.model_validate_json(result.stdout)
    assert report.passed and len(report.tests) == 4 and report.backend == "local"
