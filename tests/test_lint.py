"""The linter and the type checker, as pyproject.toml configures them ([tool.ruff],
[tool.mypy]), pass on the package; a failure shows their own report."""

from __future__ import annotations

import subprocess
import sys

import pytest

from .conftest import ROOT

# Files that were being rewritten while the checks were set up, left to be fixed after the
# merge; once they are, these tests pass and their strict xfail fails: remove the marks. Only the
# tools' own verdict (AssertionError) counts as the expected failure, never a timeout.
_RUFF_PENDING = "harness/runner.py and harness/verify.py have a line over 140 characters each"
_MYPY_PENDING = (
    "type errors left in files being rewritten: harness/runner.py, languages/cpp/catch2.py, probe/run.py, "
    "curriculum/candidate_validation.py, verify.py, sandbox/{docker,pool,local}.py, train/rewards.py, "
    "editformat.py, testwriting/score.py, testrun.py, languages/cpp/screen.py, contract.py, agents/aider*.py"
)


def _check(*command: str, timeout_s: float) -> None:
    done = subprocess.run([sys.executable, "-m", *command], cwd=ROOT, capture_output=True, text=True,
                          timeout=timeout_s)
    assert done.returncode == 0, f"{' '.join(command)} exited {done.returncode}:\n{done.stdout}{done.stderr}"


@pytest.mark.xfail(strict=True, raises=AssertionError, reason=_RUFF_PENDING)
def test_ruff_passes():
    _check("ruff", "check", "harness", "tests", timeout_s=300)


# Cold, mypy takes about 2 minutes on an idle core and several times that on two loaded
# ones; its cache (.mypy_cache) makes later runs a fraction of that.
@pytest.mark.slow
@pytest.mark.timeout(1500)
@pytest.mark.xfail(strict=True, raises=AssertionError, reason=_MYPY_PENDING)
def test_mypy_passes():
    _check("mypy", timeout_s=1200)
