"""No sandbox container outlives the harness: not on an exception, not on Ctrl-C or
SIGTERM, and one left by a SIGKILLed harness is reaped the next time a sandbox is made."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest

from harness.sandbox.docker import DockerSandbox

from tests.conftest import GOLDEN, interruptible

pytestmark = [pytest.mark.docker, pytest.mark.slow]


def containers_of(pid: int) -> list[str]:
    out = subprocess.run(
        ["docker", "ps", "-aq", "--filter", f"label=harness.pid={pid}"], capture_output=True, text=True
    )
    return out.stdout.split()


def wait_for_container(pid: int, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while not containers_of(pid):
        assert time.monotonic() < deadline, "the harness never started a container"
        time.sleep(0.2)


def test_exception_inside_a_session_removes_the_container(docker_sandbox):
    with pytest.raises(RuntimeError):
        with docker_sandbox.session("boom", "cpp"):
            assert len(containers_of(os.getpid())) == 1
            raise RuntimeError("boom")
    assert containers_of(os.getpid()) == []


def start_looping_test() -> subprocess.Popen:
    """`harness test` on a solution that never finishes, so we can interrupt it."""
    harness = os.path.join(os.path.dirname(sys.executable), "harness")
    return subprocess.Popen(
        [harness, "test", str(GOLDEN / "sum-of-squares"), "--solution", str(GOLDEN / "cases" / "infinite-loop"),
         "--sandbox", "docker"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, preexec_fn=interruptible,
    )


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_interrupt_removes_the_container(docker_sandbox, sig):
    proc = start_looping_test()
    wait_for_container(proc.pid)
    proc.send_signal(sig)
    _, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 130, stderr
    assert b"Traceback" not in stderr
    assert containers_of(proc.pid) == []


def test_sigkilled_harness_leaves_a_container_that_is_reaped(docker_sandbox):
    proc = start_looping_test()
    wait_for_container(proc.pid)
    proc.kill()
    proc.wait()
    assert len(containers_of(proc.pid)) == 1
    DockerSandbox()  # making any Docker sandbox reaps containers of dead harness processes
    assert containers_of(proc.pid) == []
