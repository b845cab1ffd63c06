"""The `harness` command: one module per area, each a Typer sub-app or a few commands
registered on the root app. A command's module, and all it imports, loads when that
command runs (app.py's group asks `COMMANDS`), so one command does not pay for the
libraries of every other."""

from __future__ import annotations

import signal

from .app import COMMANDS, app

__all__ = ["COMMANDS", "app", "main"]


def main() -> None:
    # A polite kill gets the same cleanup as Ctrl-C: sandboxes closed, nothing half-written.
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    app()
