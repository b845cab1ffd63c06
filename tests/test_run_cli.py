"""`harness run` refuses bad input before any work, with one line and exit code 2, and
creates no run folder; `--dry-run` says what would run and runs nothing."""

from __future__ import annotations

import socket
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from harness.cli import app

from .run_support import make_suite

runner = CliRunner()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def suite(tmp_path) -> Path:
    return make_suite(tmp_path)


def one_line_exit_2(result, runs: Path, expect: str) -> None:
    assert result.exit_code == 2, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    assert expect in lines[0]
    assert "Traceback" not in result.output
    assert not runs.exists() or not any(runs.iterdir())


@pytest.mark.parametrize("args, expect", [
    (["--suite", "no-such-suite", "--model", "gold"], "unknown suite 'no-such-suite'"),
    (["--model", "foo/bar"], "unknown model provider 'foo'"),
    (["--model", "anthropic/claude-3-5-sonnet-20241022"], "ANTHROPIC_API_KEY is not set"),
    (["--model", "openai/served", "--api-base", "http://127.0.0.1:{port}/v1"], "no server answers at"),
    (["--model", "gold", "--tasks", "sum-of-squares,nope"], "no task 'nope'"),
    (["--model", "gold", "--trials", "0"], "--trials"),
    (["--model", "gold", "--top-p", "1.5"], "--top-p"),
    (["--model", "gold", "--agent", "no-such-agent"], "unknown agent profile"),
    (["--model", "gold", "--contract", "no-such-contract"], "unknown prompt contract"),
    (["--model", "gold", "--sandbox", "vm"], "unknown sandbox"),
    (["--resume", "no-such-run"], "no such run"),
    (["--resume", "some-run", "--model", "gold"], "--resume takes models"),
    (["--model", "gold", "--feedback", "imagined"], "--feedback"),
    (["--model", "gold", "--feedback", "simulated"], "the gold model answers with code, not predictions"),
    (["--model", "gold", "--feedback", "simulated", "--contract", "repair"], "repair has no simulated_feedback"),
    (["--resume", "some-run", "--feedback", "simulated"], "--resume takes feedback"),
    ([], "no --model given"),
    (["--model", "gold", "--kind", "prose"], "--kind"),
    (["--model", "gold", "--fill"], "--fill is for --kind tests"),
    (["--model", "gold", "--kind", "tests", "--contract", "original"], "prompt contract original is for repair trials"),
    (["--model", "gold::tests", "--kind", "repair"], "prompt contract tests is for tests trials"),
    (["--model", "gold::no-such-contract", "--kind", "tests"], "unknown prompt contract"),
    (["--model", "gold", "--kind", "tests", "--mutant-cap", "0"], "--mutant-cap"),
])
def test_bad_input_is_one_line_and_exit_2(args, expect, suite, tmp_path, monkeypatch):
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    runs = tmp_path / "runs"
    args = [a.replace("{port}", str(free_port())) for a in args]
    if "--suite" not in args and "--resume" not in args:
        args += ["--suite", str(suite)]
    result = runner.invoke(app, ["run", *args, "--runs-dir", str(runs)])
    one_line_exit_2(result, runs, expect)


def test_dry_run_lists_the_trials_and_creates_nothing(suite, tmp_path):
    runs = tmp_path / "runs"
    result = runner.invoke(app, ["run", "--suite", str(suite), "--model", "gold", "--trials", "3",
                                 "--runs-dir", str(runs), "--run-id", "dry", "--dry-run"])
    assert result.exit_code == 0, result.output
    assert "run dry: 3 trial(s) to run, 0 already done" in result.stdout
    assert [ln.strip() for ln in result.stdout.splitlines()[1:]] == [f"gold sum-of-squares trial-{k}" for k in (1, 2, 3)]
    assert not runs.exists()


def test_the_installed_command_prints_one_line(suite, tmp_path):
    harness = Path(sys.executable).parent / "harness"
    done = subprocess.run([str(harness), "run", "--suite", str(suite), "--model", "nosuch/model",
                           "--runs-dir", str(tmp_path / "runs")], capture_output=True, text=True)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.startswith("error: unknown model provider 'nosuch'") and done.stderr.count("\n") == 1
