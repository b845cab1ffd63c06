"""Shared fixtures: the sandbox backends, each skipped with its reason when this machine
cannot provide it (the README's test command brings Docker up first)."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.errors import SandboxUnavailable
from harness.sandbox.base import SandboxLimits

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = ROOT / "tests" / "golden"


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
