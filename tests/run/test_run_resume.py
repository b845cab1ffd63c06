"""Stopping `harness run` and resuming it, with the real command in its own process: a
SIGKILL at any moment, then `--resume`, gives the same set of results as a run never
stopped, and finished trials are neither rerun nor lost; Ctrl-C leaves no container
behind."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from harness.records import TrialOutcome, TrialResult

from tests.conftest import interruptible
from tests.run_support import make_suite

pytestmark = [pytest.mark.slow, pytest.mark.docker, pytest.mark.timeout(1800)]

HARNESS = Path(sys.executable).parent / "harness"
TRIALS = 5


def containers(pid: int) -> list[str]:
    out = subprocess.run(["docker", "ps", "-aq", "--filter", f"label=harness.pid={pid}"],
                         capture_output=True, text=True, check=True)
    return out.stdout.split()


def results(run_dir: Path) -> dict[Path, bytes]:
    return {p: p.read_bytes() for p in sorted(run_dir.glob("*/*/trial-*/result.json"))}


def start(suite: Path, runs: Path, *extra: str) -> subprocess.Popen:
    args = ["run", "--suite", str(suite), "--model", "gold", "--trials", str(TRIALS), "--workers", "2",
            "--sandbox", "docker", "--runs-dir", str(runs), "--run-id", "r"]
    return subprocess.Popen([str(HARNESS), *args, *extra], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=interruptible)


def resume(runs: Path) -> subprocess.CompletedProcess:
    return subprocess.run([str(HARNESS), "run", "--resume", "r", "--runs-dir", str(runs), "--workers", "2"],
                          capture_output=True, text=True, timeout=900)


def wait_until(condition, timeout_s: float = 300) -> None:
    deadline = time.monotonic() + timeout_s
    while not condition():
        assert time.monotonic() < deadline, "timed out waiting"
        time.sleep(0.2)


def outcome_set(run_dir: Path) -> set[tuple]:
    out = set()
    for data in results(run_dir).values():
        r = TrialResult.model_validate_json(data)
        out.add((r.config, r.task, r.trial, r.outcome, r.passed_round))
    return out


EXPECTED = {("gold", "sum-of-squares", k, TrialOutcome.passed, 1) for k in range(1, TRIALS + 1)}


@pytest.fixture(scope="module")
def docker_ready():
    from tests.conftest import make_backend

    make_backend("docker")


def test_sigkill_at_any_moment_then_resume(docker_ready, tmp_path):
    suite = make_suite(tmp_path)
    runs = tmp_path / "runs"
    run_dir = runs / "r"
    killed = []

    # Killed while the first trials are still in their sandboxes: nothing is finished.
    proc = start(suite, runs)
    wait_until(lambda: containers(proc.pid) or proc.poll() is not None)
    proc.kill()
    proc.wait()
    killed.append(proc.pid)
    assert (run_dir / "manifest.json").is_file()

    # Resumed, then killed again once some trials are finished.
    proc = subprocess.Popen([str(HARNESS), "run", "--resume", "r", "--runs-dir", str(runs), "--workers", "2"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    wait_until(lambda: len(results(run_dir)) >= 2 or proc.poll() is not None)
    proc.kill()
    proc.wait()
    killed.append(proc.pid)
    kept = results(run_dir)
    assert kept, "the second kill came after trials finished"

    done = resume(runs)
    assert done.returncode == 0, done.stderr
    assert outcome_set(run_dir) == EXPECTED
    after = results(run_dir)
    for path, data in kept.items():  # finished before the kill: not rerun, not lost
        if TrialResult.model_validate_json(data).done:
            assert after[path] == data
    for pid in killed:  # what the killed processes left is reaped by the next run
        assert containers(pid) == []

    again = resume(runs)
    assert again.returncode == 0 and results(run_dir) == after  # nothing left to do


def test_ctrl_c_leaves_no_container_and_resume_finishes(docker_ready, tmp_path):
    suite = make_suite(tmp_path)
    runs = tmp_path / "runs"
    proc = start(suite, runs)
    wait_until(lambda: containers(proc.pid) or proc.poll() is not None)
    proc.send_signal(signal.SIGINT)
    _, stderr = proc.communicate(timeout=300)
    assert proc.returncode == 130, stderr
    assert "--resume r" in stderr
    assert containers(proc.pid) == []
    for data in results(runs / "r").values():
        r = TrialResult.model_validate_json(data)
        assert r.outcome is TrialOutcome.passed or r.infra_error.kind == "interrupted"
    done = resume(runs)
    assert done.returncode == 0, done.stderr
    assert outcome_set(runs / "r") == EXPECTED


def test_a_harness_bug_is_kept_by_resume_until_asked_and_a_newer_result_is_refused(docker_ready, tmp_path, monkeypatch):
    """An unexpected exception in the harness ends its trial as an infrastructure error of
    kind harness, with its traceback, not blamed on the agent; `--resume` keeps it (rerunning
    would rerun the bug) until --retry-harness-errors asks. A result.json of a schema this
    harness does not know stops --resume with one line instead of being rerun."""
    from harness.languages.cpp.language import Cpp
    from harness.run import run
    from harness.run.config import RunConfig
    from harness.store import RunFolder

    def bug(self, files):
        raise KeyError("a bug of the harness")

    suite, runs = make_suite(tmp_path), tmp_path / "runs"
    monkeypatch.setattr(Cpp, "flags", bug)  # the repair round's judge screens the solution
    first = run(RunConfig(suite=str(suite), models=["gold"], trials=1, workers=1, sandbox="docker",
                          runs_dir=runs, run_id="r"))
    monkeypatch.undo()
    folder = RunFolder(first.run_dir)
    trial = folder.trial_dir("gold", "sum-of-squares", 1)
    r = folder.read_result("gold", "sum-of-squares", 1)
    assert r.outcome is TrialOutcome.infra_error and r.infra_error.kind == "harness"
    assert "KeyError" in r.infra_error.message and "a bug of the harness" in (trial / "harness-error.log").read_text()
    (s,) = first.configs
    assert (s.infra_errors, s.harness_errors) == (1, 1)

    kept = (trial / "result.json").read_bytes()
    again = resume(runs)
    assert again.returncode == 1 and "--retry-harness-errors" in again.stderr, again.stderr
    assert (trial / "result.json").read_bytes() == kept

    retried = run(RunConfig(resume="r", runs_dir=runs, retry_harness_errors=True))
    assert (retried.ran, retried.skipped) == (1, 0)
    assert folder.read_result("gold", "sum-of-squares", 1).outcome is TrialOutcome.passed

    newer = (trial / "result.json").read_text().replace('"schema_version": 1', '"schema_version": 2', 1)
    (trial / "result.json").write_text(newer)
    refused = subprocess.run([str(HARNESS), "run", "--resume", "r", "--runs-dir", str(runs), "--dry-run"],
                             capture_output=True, text=True, timeout=300)
    assert refused.returncode == 2 and "schema_version 2" in refused.stderr, refused.stderr
    assert len(refused.stderr.strip().splitlines()) == 1
    assert (trial / "result.json").read_text() == newer
