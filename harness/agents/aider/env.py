"""The Aider environment: a virtual environment per Aider version under the cache folder,
created on first use. Aider pins exact versions of numpy, litellm, tokenizers and more,
which clash with the training stack, so it never shares an interpreter with the harness.

Creation is guarded by a file lock (parallel workers and parallel harness processes wait
for one installer) and finished by a marker written last: a folder without the marker is
a broken install and is made again."""

from __future__ import annotations

import fcntl
import json
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Callable

from ...errors import InfraError, InfraKind
from ...fs import atomic_write
from ...paths import cache_dir

DEFAULT_AIDER_VERSION = "0.86.2"
_MARKER = "ready.json"


def env_root(version: str) -> Path:
    return cache_dir() / "aider" / version


def _python(root: Path) -> Path:
    return root / "venv" / "bin" / "python"


def installed_python(version: str) -> Path | None:
    """The interpreter of a finished environment, or None."""
    root = env_root(version)
    return _python(root) if (root / _MARKER).is_file() and _python(root).exists() else None


def _run(argv: list[str], what: str, timeout: float) -> None:
    try:
        proc = subprocess.run(argv, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        raise InfraError(InfraKind.agent, f"{what} took longer than {timeout:.0f} s") from None
    if proc.returncode != 0:
        tail = (proc.stderr or proc.stdout).strip().splitlines()[-3:]
        raise InfraError(InfraKind.agent, f"{what} failed: {' | '.join(tail)}")


def ensure_aider_env(version: str = DEFAULT_AIDER_VERSION, log: Callable[[str], None] | None = None) -> Path:
    """The Python of the environment for `aider-chat==version`, installing it if needed."""
    found = installed_python(version)
    if found is not None:
        return found
    root = env_root(version)
    root.mkdir(parents=True, exist_ok=True)
    with open(root / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        found = installed_python(version)
        if found is not None:  # another process finished it while we waited
            return found
        (log or (lambda m: None))(f"creating the Aider {version} environment in {root} (once; about a minute)")
        start = time.monotonic()
        venv = root / "venv"
        shutil.rmtree(venv, ignore_errors=True)
        (root / _MARKER).unlink(missing_ok=True)
        # The base interpreter, not the harness venv's, so nothing of ours leaks in.
        base = getattr(sys, "_base_executable", None) or sys.executable
        _run([base, "-m", "venv", str(venv)], "creating the Aider virtual environment", 300)
        py = _python(root)
        _run(
            [str(py), "-m", "pip", "install", "--disable-pip-version-check", "--no-input", "-q",
             f"aider-chat=={version}"],
            f"pip install aider-chat=={version}", 1800,
        )
        probe = subprocess.run(
            [str(py), "-I", "-c", "import aider; print(aider.__version__)"],
            capture_output=True, text=True, timeout=300,
        )
        got = probe.stdout.strip()
        if probe.returncode != 0 or got != version:
            raise InfraError(InfraKind.agent, f"the Aider environment reports version {got!r}, expected {version}")
        atomic_write(root / _MARKER, json.dumps({"aider_version": version, "python": str(py),
                                                 "seconds": round(time.monotonic() - start, 1)}).encode())
        return py
