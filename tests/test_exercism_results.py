"""`harness test --format exercism` writes results.json as version 3 of Exercism's
test-runner interface defines it, checked against golden files (one per outcome, as
Exercism's own runners keep them): per-test test_code from the test file, task_id from the
`[task_N]` markers (none for a test with no marker or with two), output trimmed and cut at
500 characters with the interface's message, the top-level message only for an error."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from harness.cli import app
from harness.exercism_results import (MESSAGE_LIMIT, OUTPUT_LIMIT, OUTPUT_TRUNCATED, capped_message, capped_output,
                                      exercism_results)
from harness.languages.cpp.language import Cpp, task_id
from harness.records import Status, TestCaseResult, TestReport
from harness.task import load_task

from tests.conftest import GOLDEN

runner = CliRunner()
CASES = GOLDEN / "exercism"


@pytest.mark.docker
@pytest.mark.parametrize("case, exit_code", [("pass", 0), ("fail", 1), ("compile-error", 1), ("chatty", 0)])
def test_results_json_matches_its_golden_file(case, exit_code, tmp_path, docker_sandbox):
    out = tmp_path / "results.json"
    got = runner.invoke(app, ["test", str(GOLDEN / "lasagna"), "--solution", str(CASES / case), "--format",
                              "exercism", "--out", str(out), "--sandbox", "docker"])
    assert got.exit_code == exit_code, got.output
    assert json.loads(out.read_text()) == json.loads((CASES / case / "expected_results.json").read_text())


def test_the_interface_limits_by_hand():
    assert capped_output("  printed  \n") == "printed"
    assert capped_output("\n \n") is None
    long = capped_output("x" * 2000)
    assert len(long) <= OUTPUT_LIMIT and long.endswith("\n" + OUTPUT_TRUNCATED) and long.startswith("x" * 400)
    assert capped_output("y" * OUTPUT_LIMIT) == "y" * OUTPUT_LIMIT
    # the message's limit is in bytes: a multi-byte character is never cut in half
    message = capped_message("é" * 40_000)
    assert len(message.encode()) <= MESSAGE_LIMIT and message.endswith("(message truncated to 65535 bytes)")
    assert capped_message("short") == "short"


@pytest.mark.parametrize("tags, expected", [(["task_3"], 3), (["task_12", "slow"], 12), (["task_1", "task_2"], None),
                                            ([], None), (["a1"], None), (["task_1", "task_1"], 1)])
def test_a_test_is_linked_to_exactly_one_task(tags, expected):
    assert task_id(tags) == expected


def test_format_and_out_are_checked_before_building(tmp_path):
    bad = runner.invoke(app, ["test", str(GOLDEN / "lasagna"), "--format", "yaml"])
    assert bad.exit_code == 2 and "--format yaml" in bad.stderr
    (tmp_path / "a-file").write_text("")
    nowhere = runner.invoke(app, ["test", str(GOLDEN / "lasagna"), "--format", "exercism", "--out",
                                  str(tmp_path / "a-file" / "results.json")])
    assert nowhere.exit_code == 2 and "cannot be written" in nowhere.stderr and len(nowhere.stderr.splitlines()) == 1


def test_test_code_and_task_come_from_the_test_file_not_the_run():
    task = load_task(GOLDEN / "lasagna")
    texts = Cpp().case_texts(task)
    assert [t.task_id for t in texts] == [1, 2, 3, 3, 4, None, None]  # two tasks, or none: no task
    report = TestReport(status=Status.passed, built=True, tests=[
        TestCaseResult(name=t.name, status=Status.passed, tags=["task_7"]) for t in reversed(texts)])
    results = exercism_results(task, report)
    assert [t.name for t in results.tests] == [t.name for t in texts]  # the file's order
    assert [t.task_id for t in results.tests] == [1, 2, 3, 3, 4, None, None]  # the run's tags say nothing
    assert results.tests[0].test_code == "REQUIRE(lasagna::expected_minutes_in_oven() == 40);"
