"""Shared fixtures: the sandbox backends, each skipped with its reason when this machine
cannot provide it (the README's test command brings Docker up first)."""

from __future__ import annotations

import signal
from pathlib import Path

import pytest

from harness.errors import SandboxUnavailable
from harness.sandbox.base import SandboxLimits

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = ROOT / "tests" / "golden"


# The slowest files first. The test command gives each worker a file at a time, so the suite
# ends when its last file does; a long file collected last (they sort by name) left one core
# idle for minutes at the end of CI's run.
LONGEST_FIRST = ("test_suite_validate.py", "test_verdict_channel.py", "test_executor_ray.py", "test_screen.py",
                 "test_loop.py", "test_testwriting.py",
                 "test_testwriting_run.py", "test_train_loop.py", "test_verify_sandbox.py", "test_curriculum.py",
                 "test_predict_eval.py", "test_run_resume.py", "test_verifier_candidates.py", "test_run_e2e.py",
                 "test_run_simulated.py", "test_quickstart.py", "test_lint.py", "test_run_gold.py", "test_train_cpp.py",
                 "test_upstream_main.py", "test_golden_sandbox.py", "test_view.py", "test_isolation.py",
                 "test_run_direct.py")


def pytest_collection_modifyitems(items):
    rank = {name: i for i, name in enumerate(LONGEST_FIRST)}
    items.sort(key=lambda item: rank.get(item.path.name, len(rank)))  # stable: a file's own order kept


def make_backend(kind: str, limits: SandboxLimits | None = None):
    try:
        if kind == "docker":
            from harness.sandbox.docker import DockerSandbox

            return DockerSandbox(limits)
        from harness.sandbox.local import LocalSandbox

        return LocalSandbox(limits)
    except SandboxUnavailable as exc:
        pytest.skip(f"{kind} sandbox unavailable: {exc}")


@pytest.fixture(scope="session")
def docker_sandbox():
    return make_backend("docker")


@pytest.fixture(scope="session")
def local_sandbox():
    return make_backend("local")


def interruptible() -> None:
    """preexec_fn for a harness process a test will interrupt: SIGINT handled by default
    and not blocked. Both are inherited across exec, and in a test worker that has run
    other tests (two workers in CI) the harness was once started with SIGINT not reaching
    it, so it finished its work instead of stopping."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
