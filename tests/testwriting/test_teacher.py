"""`harness tests import-teacher`: a teacher's suites, each scored by the harness's own metric
in the sandbox; the valid one that kills enough becomes an SFT row with its provenance, and
every other line is listed with why, none of them fatal."""

from __future__ import annotations

import json

import pytest

from harness.hashing import sha256_bytes
from harness.training_files import SFT_FILE

from tests.testwriting.test_testwriting import suite_source

pytestmark = [pytest.mark.docker, pytest.mark.slow]


def test_a_teacher_file_keeps_the_good_suites_and_says_why_of_the_rest(tmp_path, monkeypatch, docker_sandbox):
    import datasets
    from typer.testing import CliRunner

    from harness.cli import app

    lines = [json.dumps({"task": "perfect-numbers", "suite": suite_source("perfect-numbers", k).decode()})
             for k in ("strong", "wrong_value", "kills_nothing")]
    lines += [json.dumps({"task": "no-such-task", "suite": "x"}), "{not json", json.dumps({"task": "perfect-numbers"})]
    teacher = tmp_path / "teacher.jsonl"
    teacher.write_text("\n".join(lines) + "\n")
    monkeypatch.chdir(tmp_path)
    done = CliRunner().invoke(app, ["tests", "import-teacher", str(teacher), "--suite", "fixed26", "--out", "teach",
                                    "--mutant-cap", "3", "--sandbox", "docker"])
    assert done.exit_code == 0, done.output
    out = tmp_path / "curricula" / "teach"
    manifest = json.loads((out / "manifest.json").read_text())
    assert (manifest["lines"], manifest["sft"], manifest["source_tasks"]) == (6, 1, ["fixed26/perfect-numbers"])
    why = {b["line"]: b["why"] for b in manifest["left_out"]}
    assert why[2].startswith("not valid: fail: Smallest abundant number")
    assert why[3] == "kill rate 0.00 is below --min-kill 0.8"
    assert why[4] == "no task 'no-such-task' in suite fixed26"
    assert why[5].startswith("not JSON") and why[6] == "suite: Field required"
    (row,) = datasets.load_dataset("json", data_files=str(out / SFT_FILE))["train"]
    assert row["provenance"]["file_sha256"] == sha256_bytes(teacher.read_bytes()) and row["provenance"]["line"] == 1
    assert row["provenance"]["kill_rate"] == 1.0 and row["source_task"] == "fixed26/perfect-numbers"
    assert suite_source("perfect-numbers", "strong").decode() in row["messages"][-1]["content"]
    assert "line 4 (no-such-task): no task" in done.stdout
