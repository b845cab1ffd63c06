"""Bringing sandboxes up on a bare machine: which Debian packages are missing is read from
dpkg itself, and a running engine is left alone."""

from __future__ import annotations

import shutil

import pytest

from harness.sandbox.engine import LOCAL_PACKAGES, ensure_engine, engine_reachable, missing_packages  # noqa: F401  (engine_reachable: a skipif condition)

pytestmark = pytest.mark.skipif(shutil.which("dpkg-query") is None, reason="not a Debian machine")


def test_missing_packages_are_read_from_dpkg():
    assert missing_packages(["dpkg"]) == []
    assert missing_packages(["dpkg", "harness-no-such-package"]) == ["harness-no-such-package"]


def test_the_local_backends_needs_are_installed_after_sandbox_up():
    # `make test` runs `harness sandbox up` first, which installs these as root.
    assert missing_packages(LOCAL_PACKAGES) == []


# A string condition is evaluated when the test runs: collecting the tests does not reach for Docker.
@pytest.mark.skipif("not engine_reachable()", reason="no Docker engine here")
def test_a_running_engine_is_left_alone():
    assert ensure_engine(log=lambda m: pytest.fail(f"tried to act: {m}")) == "running"
