"""Where things live: the declarative asset folders (inside the installed package when
installed from a wheel, at the top of the repository in a source checkout), files shipped
inside the import package, and the user's cache and state directories."""

from __future__ import annotations

import os
from pathlib import Path

ASSET_KINDS = ("suites", "agents", "prompt_contracts", "adapters", "reports")

_PACKAGE = Path(__file__).resolve().parent


def bundled_dir(kind: str) -> Path:
    if kind not in ASSET_KINDS:
        raise ValueError(f"unknown asset kind {kind!r}")
    installed = _PACKAGE / "_assets" / kind
    if installed.is_dir():
        return installed
    return _PACKAGE.parent / kind


def package_file(*parts: str) -> Path:
    """A file shipped inside the import package itself (Dockerfile, test main, driver)."""
    return _PACKAGE.joinpath(*parts)


def cache_dir() -> Path:
    """Rebuildable things: the Aider environment, compiled test mains, downloaded nothing."""
    root = os.environ.get("HARNESS_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "harness"
    )
    path = Path(root)
    path.mkdir(parents=True, exist_ok=True)
    return path


def state_dir() -> Path:
    """Things that describe the user's live setup: running servers, user suites, cards."""
    root = os.environ.get("HARNESS_STATE_DIR") or os.path.join(
        os.environ.get("XDG_STATE_HOME") or os.path.expanduser("~/.local/state"), "harness"
    )
    path = Path(root)
    path.mkdir(parents=True, exist_ok=True)
    return path
