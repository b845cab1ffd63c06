"""A run hands each worker's sandbox session from one trial to the next. What a candidate
left in it (files in the scratch and in /tmp, its build tree, its staged sources) must be
gone before the next trial gets it, and a container where a candidate's process outlived
its run is not handed on at all."""

from __future__ import annotations

import subprocess

import pytest

from harness.records import Status
from harness.sandbox.base import Role
from harness.sandbox.pool import SessionPool
from harness.task import load_task
from harness.languages.cpp.testrun import run_tests

from tests.conftest import GOLDEN, ROOT

pytestmark = [pytest.mark.slow]

TASK = load_task(GOLDEN / "sum-of-squares")
NEXT = load_task(ROOT / "suites" / "fixed26" / "clock")

# Both pass their tests. One leaves files in its scratch (its working directory) and in
# /tmp; the other also a daemon that called setsid() and sleeps.
LITTERING = b"""\
#include "sum_of_squares.h"

#include <fstream>
#include <stdexcept>
#include <unistd.h>

namespace sum_of_squares {

static bool litter() {
    std::ofstream("left-in-scratch") << "x";
    std::ofstream("/tmp/left-in-tmp") << "x";
#ifdef DAEMON
    if (fork() == 0) {
        setsid();
        if (fork() == 0) {
            for (int fd = 0; fd < 64; ++fd) close(fd);  // so the test run itself can end
            execl("/bin/sleep", "sleep", "600", (char*)nullptr);
        }
        _exit(0);
    }
#endif
    return true;
}

static const bool littered = litter();

long long sum(int n) {
    if (n < 0) throw std::domain_error("negative");
    return littered ? static_cast<long long>(n) * (n + 1) * (2 * n + 1) / 6 : 0;
}

}  // namespace sum_of_squares
"""


def littering_candidate(daemon: bool = False) -> dict[str, bytes]:
    source = (b"#define DAEMON\n" if daemon else b"") + LITTERING
    return {**TASK.reference_files(), "sum_of_squares.cpp": source}


def test_a_reused_docker_session_keeps_nothing_of_the_last_trial(docker_sandbox):
    pool = SessionPool(docker_sandbox)
    try:
        s = pool.acquire("first trial")
        assert run_tests(TASK, littering_candidate(), s).status is Status.passed
        pool.release(s)
        again = pool.acquire("second trial")
        assert again is s
        probe = again.exec(["sh", "-c", "ls -A /tmp /scratch /build /src; "
                                        "for p in /proc/[0-9]*; do cat $p/comm; done 2>/dev/null"],
                           role=Role.runner, timeout_s=30)
        listing = probe.output.decode()
        assert "left-in" not in listing and "sum-of-squares" not in listing, listing
        assert run_tests(NEXT, NEXT.reference_files(), again).status is Status.passed

        # A daemon outlives its run: killed at once, it still stays a zombie in there, so
        # that container is never used again: the run's own clean-up finds it unfit and
        # the session gets a new one before any other command runs.
        unfit = again.container.id
        assert run_tests(TASK, littering_candidate(daemon=True), again).status is Status.passed
        assert again.container.id != unfit
        pool.release(again)
        fresh = pool.acquire("third trial")
        assert run_tests(NEXT, NEXT.reference_files(), fresh).status is Status.passed
        assert fresh.container.id != unfit
        assert not docker_sandbox.client.containers.list(all=True, filters={"id": unfit})
        pool.release(fresh)
    finally:
        pool.close()
    assert fresh.container is None  # closed with the pool, once emptied


def test_a_reused_local_session_keeps_nothing_of_the_last_trial(local_sandbox):
    pool = SessionPool(local_sandbox)
    try:
        s = pool.acquire("first trial")
        assert run_tests(TASK, littering_candidate(), s).status is Status.passed
        pool.release(s)
        assert pool.acquire("second trial") is s
        left = [p for p in (s.staging / TASK.slug, *s._build.iterdir(), *s._scratch.iterdir()) if p.exists()]
        assert left == []
        running = subprocess.run(["pgrep", "-f", s.build_root], capture_output=True, text=True).stdout.split()
        assert running == []
        pool.release(s)
    finally:
        pool.close()


def test_a_round_in_a_reused_docker_session_costs_two_execs(docker_sandbox):
    # Each exec costs the engine tens of milliseconds of CPU (runc starts twice), as much
    # as a small compile: a round is one exec to build and screen what was built
    # (languages/cpp/policy.py; a sandbox's first build of a task content reads its compile
    # commands there, and screens in an exec of its own) and one to run and read back, and
    # handing the session to the next trial costs none of its own.
    pool = SessionPool(docker_sandbox)
    try:
        s = pool.acquire("first trial")
        assert run_tests(NEXT, NEXT.reference_files(), s).status is Status.passed
        pool.release(s)
        again = pool.acquire("second trial")
        roles: list[Role] = []
        real = again._exec
        again._exec = lambda argv, **kw: roles.append(kw["role"]) or real(argv, **kw)
        assert run_tests(NEXT, NEXT.reference_files(), again).status is Status.passed
        pool.release(again)
        assert pool.acquire("third trial") is again
        assert roles == [Role.builder, Role.runner]
        pool.release(again)
    finally:
        pool.close()


def test_sessions_run_their_languages_image_and_a_pool_keeps_them_apart(docker_sandbox):
    """One image per language: a C++ session runs harness-cpp's, a Python one harness-python's,
    and a pool never hands work of one language the other's idle session (its image lacks
    the toolchain); work that names no language takes any."""
    pool = SessionPool(docker_sandbox)
    try:
        cpp = pool.acquire("c++ trial", "cpp")
        pool.release(cpp)
        python = pool.acquire("python trial", "python")
        assert python is not cpp
        tags = {s.language: s.container.image.tags for s in (cpp, python)}
        assert tags["cpp"][0].startswith("harness-cpp:") and tags["python"][0].startswith("harness-python:")
        assert "harness-python" in docker_sandbox.image_facts(["python", "cpp"])[0].split(",")[1]
        pool.release(python)
        anyone = pool.acquire("any trial")
        assert anyone in (cpp, python)
        pool.release(anyone)
    finally:
        pool.close()
