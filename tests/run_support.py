"""Helpers for the `harness run` tests: a one-task suite in a temporary folder and an agent
profile that gives up on a dead provider quickly."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from tests.conftest import GOLDEN, ROOT


def make_suite(tmp_path: Path, name: str = "mini") -> Path:
    suite = tmp_path / name
    shutil.copytree(GOLDEN / "sum-of-squares", suite / "sum-of-squares")
    (suite / "suite.toml").write_text(
        f'name = "{name}"\nversion = "0.1"\nlanguage = "cpp"\nimage = "harness-cpp"\ntasks = ["sum-of-squares"]\n'
    )
    return suite


def write_python_leap(folder: Path) -> None:
    """An exercise in Exercism's Python layout (our own two-line one)."""
    (folder / ".meta").mkdir(parents=True)
    (folder / "leap.py").write_text("def leap_year(year):\n    pass\n")
    (folder / "leap_test.py").write_text("from leap import leap_year\n\ndef test_2000():\n    assert leap_year(2000)\n")
    (folder / ".meta" / "example.py").write_text("def leap_year(year):\n    return year % 4 == 0\n")
    (folder / ".meta" / "config.json").write_text(json.dumps(
        {"files": {"solution": ["leap.py"], "test": ["leap_test.py"], "example": [".meta/example.py"]}}))


def fast_profile(tmp_path: Path, edit_format: str = "whole") -> Path:
    """A bundled profile with a one-second provider retry budget."""
    text = (ROOT / "agents" / f"aider-{edit_format}.toml").read_text()
    text = text.replace(f'name = "aider-{edit_format}"', f'name = "test-{edit_format}"')
    text = text.replace("provider_retry_s = 60", "provider_retry_s = 1")
    path = tmp_path / f"test-{edit_format}.toml"
    path.write_text(text)
    return path
