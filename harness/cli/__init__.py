"""The `harness` command: one module per area, each a Typer sub-app or a few commands
registered on the root app in `register`."""

from __future__ import annotations

from .app import app
from . import sandbox as _sandbox  # noqa: F401  (registers its commands)


def main() -> None:
    app()
