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


# The slowest files first, as measured (seconds of a worker, summed over a file's tests),
# with xdist told to keep this order (the Makefile's --no-loadscope-reorder; by default it
# sends the files with the most tests first). The test command gives each worker a file at
# a time, so the suite ends when its last file does: a long file started last leaves the
# other core idle until it ends.
LONGEST_FIRST = ("test_testwriting.py", "test_suite_validate.py", "test_executor_ray.py",
                 "test_verify_sandbox.py", "test_run_resume.py", "test_catch_pch.py", "test_lint.py",
                 "test_train_loop.py", "test_quickstart.py", "test_predict.py", "test_curriculum.py", "test_python_curriculum.py",
                 "test_verifier_candidates.py", "test_upstream_main.py", "test_predict_eval.py",
                 "test_train_cpp.py", "test_testwriting_run.py", "test_python_testwriting.py", "test_screen.py", "test_suite_loader.py",
                 "test_python_candidates.py", "test_python_verifier_candidates.py", "test_python_fill.py",
                 "test_train_dpo.py", "test_run_preregistered.py", "test_python_written_suites.py", "test_pool.py",
                 "test_teacher.py",
                 "test_run_gold.py", "test_run_polyglot.py", "test_golden_sandbox.py",
                 "test_verdict_channel.py", "test_train_predict.py", "test_loop.py", "test_stats.py",
                 "test_view_pages.py", "test_local_server.py", "test_session_pool.py", "test_proxy.py",
                 "test_batch.py", "test_vllm_launcher.py", "test_python_run.py", "test_verify_python.py",
                 "test_isolation.py", "test_python_reward.py")


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
