"""The linter and the type checker, as pyproject.toml configures them ([tool.ruff],
[tool.mypy]), pass: ruff on the package and the tests, mypy on the package. A failure
shows the tool's own report."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.conftest import ROOT


def _check(*command: str, timeout_s: float) -> None:
    done = subprocess.run([sys.executable, "-m", *command], cwd=ROOT, capture_output=True, text=True,
                          timeout=timeout_s)
    assert done.returncode == 0, f"{' '.join(command)} exited {done.returncode}:\n{done.stdout}{done.stderr}"


def test_ruff_passes():
    _check("ruff", "check", "harness", "tests", timeout_s=300)


@pytest.mark.slow
def test_mypy_passes():
    # Cold, mypy takes about 50 s on an idle 2-core machine; its cache (.mypy_cache/) makes
    # a later run take seconds.
    _check("mypy", timeout_s=540)
