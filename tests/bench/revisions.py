"""Another revision of the harness beside this tree, for a bench that measures both in
turn (A/B/A/B, so a machine that gets busier weighs on both): a git worktree of REV, its
sandbox image built when missing, and its own copy of a bench script run with its own
`harness` package first on the path."""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Iterator

ROOT = Path(__file__).resolve().parents[2]

# Builds the C++ image of the revision whose harness package is first on the path, when
# missing (a revision before images were per language has one image, named by no language).
_IMAGE = ("import inspect, sys\nfrom harness.sandbox.image import build_image, find_image\n"
          "lang = ('cpp',) if inspect.signature(find_image).parameters.get('language') else ()\n"
          "find_image(*lang) or build_image(*lang, log=lambda m: print(m, file=sys.stderr))")


def _env(tree: Path) -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(tree)}


@contextlib.contextmanager
def revision(rev: str) -> Iterator[Path]:
    """A worktree of `rev`, ready to run (its image present), removed afterwards."""
    with tempfile.TemporaryDirectory(prefix="bench-baseline-") as tmp:
        tree = Path(tmp) / "tree"
        subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", str(tree), rev], check=True,
                       capture_output=True)
        try:
            subprocess.run([sys.executable, "-c", _IMAGE], cwd=tree, env=_env(tree), check=True)
            yield tree
        finally:
            subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(tree)], capture_output=True)


def run_bench(tree: Path, script: str, *args: str) -> str:
    """`tree`'s own tests/bench/<script> with `args`: its standard output; exits on failure."""
    got = subprocess.run([sys.executable, str(tree / "tests" / "bench" / script), *args], cwd=tree, env=_env(tree),
                         capture_output=True, text=True)
    if got.returncode != 0:
        sys.exit(f"{tree}: {script} exit {got.returncode}: {got.stderr.strip()[-2000:]}")
    return got.stdout
