"""Where things live: the declarative asset folders (inside the installed package when
installed from a wheel, at the top of the repository in a source checkout), files shipped
inside the import package, and the user's cache and state directories."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TypeVar

from pydantic import BaseModel, ValidationError

from .errors import BadInput, invalid
from .fs import read_toml

M = TypeVar("M", bound=BaseModel)

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


def _user_dir(own: str, xdg: str, default: str) -> Path:
    """$own if set, else $xdg/harness (XDG base directories), created on first use."""
    root = os.environ.get(own) or os.path.join(os.environ.get(xdg) or os.path.expanduser(default), "harness")
    path = Path(root)
    path.mkdir(parents=True, exist_ok=True)
    return path


def cache_dir() -> Path:
    """Rebuildable things: the Aider environment, compiled test mains, downloaded nothing."""
    return _user_dir("HARNESS_CACHE_DIR", "XDG_CACHE_HOME", "~/.cache")


def state_dir() -> Path:
    """Things that describe the user's live setup: running servers, user suites, cards."""
    return _user_dir("HARNESS_STATE_DIR", "XDG_STATE_HOME", "~/.local/state")


def load_bundled_toml(kind: str, name_or_path: str, model: type[M], what: str) -> M:
    """A bundled asset by name (`<kind>/<name>.toml`) or a TOML file by path, validated as
    `model`; its name defaults to the file's stem. Unknown names and invalid files are
    BadInput naming what the user can choose or the file at fault."""
    path, data = read_bundled_toml(kind, name_or_path, what)
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise invalid(exc, f"{path}: not a valid {what}") from None


def read_bundled_toml(kind: str, name_or_path: str, what: str) -> tuple[Path, dict]:
    """The file `load_bundled_toml` reads and its data, not yet validated (for an asset
    whose model depends on what it says: an agent profile's `agent`)."""
    path = Path(name_or_path)
    if not (path.suffix == ".toml" and path.is_file()):
        path = bundled_dir(kind) / f"{name_or_path}.toml"
    if not path.is_file():
        known = sorted(p.stem for p in bundled_dir(kind).glob("*.toml"))
        raise BadInput(f"unknown {what} {name_or_path!r}: choose one of {', '.join(known) or 'none'} or give a .toml path")
    data = read_toml(path, what)
    data.setdefault("name", path.stem)
    return path, data
