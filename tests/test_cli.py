"""The `harness` command loads a command's module when that command runs: every command is
where `COMMANDS` says, and one that needs no tables or models starts without pandas or
torch."""

from __future__ import annotations

import subprocess
import sys
from importlib import import_module
from pathlib import Path

import typer

import harness.cli
from harness.cli import COMMANDS, app


def _callbacks(command) -> list:
    subs = getattr(command, "commands", {})
    return [command.callback] if not subs else [cb for sub in subs.values() for cb in _callbacks(sub)]


def test_every_command_is_registered_by_the_module_that_commands_names():
    for path in Path(harness.cli.__file__).parent.glob("*.py"):
        import_module(f"harness.cli.{path.stem}")
    built = typer.main.get_command(app)
    assert set(built.commands) == set(COMMANDS)
    for name, command in built.commands.items():
        assert {cb.__module__ for cb in _callbacks(command) if cb is not None} == {f"harness.cli.{COMMANDS[name]}"}, name


def test_a_command_loads_only_what_it_needs():
    probe = ("import sys; from typer.testing import CliRunner; from harness.cli import app; "
             "r = CliRunner().invoke(app, ['suite', 'list']); "
             "print(r.exit_code, 'fixed26' in r.output, *(m in sys.modules for m in ('pandas', 'torch', 'harness.cli.run')))")
    got = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120)
    assert got.stdout.split() == ["0", "True", "False", "False", "False"], got.stdout + got.stderr
