"""Golden tests in the Exercism test-runner style: one small task of our own and solutions
that pass, fail one test, fail to compile, loop forever, allocate without bound, fork
without bound, print 100 MB, reach for the network, write outside the workspace, and edit
the test file. Each must give the expected TestReport on both backends and leave the
machine clean."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from harness.records import Status
from harness.sandbox.base import SandboxLimits
from harness.task import load_task
from harness.languages.cpp.testrun import run_tests

from tests.conftest import GOLDEN, make_backend

TASK = load_task(GOLDEN / "sum-of-squares")
CASES = GOLDEN / "cases"
LIMITS = SandboxLimits(timeout_s=6, build_timeout_s=240)

pytestmark = [pytest.mark.slow]


def solution(case: str, session) -> dict[str, bytes]:
    files = {}
    for p in (CASES / case).iterdir():
        data = p.read_bytes().replace(b"@SRC@", session.src_root.encode()).replace(b"@BUILD@", session.build_root.encode())
        files[p.name] = data
    return files


def docker_labelled(pid: int | None = None) -> list[str]:
    """Sandbox containers, all of them or only those a given harness process made."""
    label = f"label=harness.pid={pid}" if pid else "label=harness.sandbox"
    out = subprocess.run(["docker", "ps", "-aq", "--filter", label], capture_output=True, text=True)
    return out.stdout.split()


def processes_of(session) -> list[str]:
    """Host processes still running anything from this session's build tree."""
    out = subprocess.run(["pgrep", "-f", session.build_root], capture_output=True, text=True)
    return out.stdout.split()


@pytest.fixture(scope="module", params=["docker", "local"])
def session(request):
    sandbox = make_backend(request.param, LIMITS)
    with sandbox.session("golden") as s:
        yield s
    if request.param == "docker":
        assert docker_labelled(os.getpid()) == [], "a sandbox container outlived its session"


def run(case: str, session):
    report = run_tests(TASK, solution(case, session), session)
    if session.build_root != "/build":  # the local backend: nothing may outlive the run
        assert processes_of(session) == [], f"{case} left processes behind"
    statuses = {t.name: t.status for t in report.tests}
    return report, statuses


def test_pass(session):
    report, statuses = run("pass", session)
    assert report.status is Status.passed, report.message
    assert len(statuses) == 4 and set(statuses.values()) == {Status.passed}
    assert [t.tags for t in report.tests][0] == ["a1"]
    assert report.tampered == [] and not report.timeout


def test_fail_one(session):
    report, statuses = run("fail-one", session)
    assert report.status is Status.failed
    failed = [n for n, s in statuses.items() if s is not Status.passed]
    assert failed == ["sum of the first hundred"]
    msg = next(t.message for t in report.tests if t.name == "sum of the first hundred")
    assert "338350" in msg and "REQUIRE" in msg


def test_compile_error(session):
    report, _ = run("compile-error", session)
    assert report.status is Status.error and report.tests == []
    assert "sum_of_squares.cpp:" in report.message and "error" in report.message
    # Diagnostics name files relative to the exercise, never the sandbox's paths.
    assert session.src_root not in report.message and str(session.staging) not in report.message


def test_infinite_loop_times_out(session):
    report, _ = run("infinite-loop", session)
    assert report.status is Status.error and report.timeout
    assert "timed out" in report.message
    assert report.run_seconds < LIMITS.timeout_s + 5
    # The session recovers: the next run builds and passes.
    again, _ = run("pass", session)
    assert again.status is Status.passed


def test_unbounded_allocation_is_stopped(session):
    report, _ = run("unbounded-alloc", session)
    assert report.status in (Status.error, Status.failed)
    assert not report.passed


def test_fork_bomb_is_contained(session):
    report, _ = run("fork-bomb", session)
    assert report.status is Status.error
    again, _ = run("pass", session)
    assert again.status is Status.passed


def test_printing_100mb_is_capped(session):
    report, _ = run("print-100mb", session)
    assert report.status is Status.passed, report.message
    assert report.output_truncated
    assert len(report.output.encode()) <= LIMITS.output_cap_bytes
    per_test = [t.output or "" for t in report.tests]
    assert any("more bytes dropped" in o for o in per_test)


def test_network_is_unreachable(session):
    report, _ = run("network-socket", session)
    assert report.status is Status.passed, [t.message for t in report.tests]


def test_writes_outside_the_workspace_fail(session):
    report, _ = run("write-outside", session)
    assert report.status is Status.passed, [t.message for t in report.tests]
    assert not Path("/etc/harness-escape").exists() and not Path("/harness-escape").exists()
    staged = session.staging / TASK.slug / "sum_of_squares_test.cpp"
    assert staged.read_bytes() == TASK.read("sum_of_squares_test.cpp")


def test_edited_test_file_is_restored_and_flagged(session):
    report, statuses = run("edit-test-file", session)
    assert report.tampered == ["sum_of_squares_test.cpp"]
    # The task's own four tests ran, not the workspace's single one.
    assert len(statuses) == 4
    assert report.status is Status.failed
