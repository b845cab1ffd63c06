"""The linter, as pyproject.toml configures it ([tool.ruff]), passes on the package and the
tests; a failure shows its own report. The type checker ([tool.mypy]) joins this file once
it passes too (docs/development.md says what is left)."""

from __future__ import annotations

import subprocess
import sys

from .conftest import ROOT


def _check(*command: str, timeout_s: float) -> None:
    done = subprocess.run([sys.executable, "-m", *command], cwd=ROOT, capture_output=True, text=True,
                          timeout=timeout_s)
    assert done.returncode == 0, f"{' '.join(command)} exited {done.returncode}:\n{done.stdout}{done.stderr}"


def test_ruff_passes():
    _check("ruff", "check", "harness", "tests", timeout_s=300)
