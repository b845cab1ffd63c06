"""The root of the `harness` command and what every command shares. Commands are thin:
each turns its options into arguments of one function that tests call directly, and
typed errors become exit codes (2 for bad input, with one line; 1 when the work failed)."""

from __future__ import annotations

from collections.abc import Iterable
from functools import wraps
from importlib import import_module

import typer
from rich.console import Console
from typer.core import TyperGroup

from ..errors import BadInput, HarnessError

# Each root command and the module of harness.cli that registers it, in the order the
# help lists them: single commands, then groups.
COMMANDS = {
    "test": "sandbox", "report": "report", "compare": "report", "plan-trials": "report", "preregister": "report",
    "run": "run", "verify": "verify", "loop": "loop", "view": "view", "select": "select", "schema": "schema",
    "image": "sandbox", "sandbox": "sandbox", "serve": "serve", "adapters": "serve", "suite": "suite", "pool": "pool",
    "train": "train", "curriculum": "curriculum", "predict": "predict", "tests": "tests",
}


class _LazyCommands(TyperGroup):
    """The root group: a command's module is imported when the command is looked up (its
    import registers it on `app`), the help's listing imports them all."""

    def _load(self, modules: Iterable[str]) -> None:
        for module in dict.fromkeys(modules):
            import_module(f"{__package__}.{module}")
        built = typer.main.get_command(app)
        assert isinstance(built, TyperGroup)
        self.commands.update(built.commands)

    def list_commands(self, ctx) -> list[str]:
        self._load(COMMANDS.values())
        return [name for name in COMMANDS if name in self.commands]

    def get_command(self, ctx, cmd_name: str):
        if cmd_name not in self.commands and cmd_name in COMMANDS:
            self._load([COMMANDS[cmd_name]])
        return super().get_command(ctx, cmd_name)


app = typer.Typer(
    cls=_LazyCommands, add_completion=False, no_args_is_help=True,
    help="Evaluate coding models and LoRA adapters by execution, and train them on what they fail.",
)


@app.callback()
def _root() -> None:
    # A group with no command registered yet (they register as their modules load) is still
    # a group to Typer only when it has a callback.
    pass


console = Console()
err = Console(stderr=True)


def print_wide(out: Console, renderable) -> None:
    """A table at its full width: piped into a file or a CI log, rich would squeeze it into
    80 columns and cut names short."""
    (out if out.is_terminal else Console(file=out.file, width=10_000, no_color=out.no_color)).print(renderable)


def fail(message: str, code: int = 2) -> None:
    err.print(f"error: {message}", markup=False, highlight=False, soft_wrap=True)
    raise typer.Exit(code)


def handled(fn):
    """Bad input and infrastructure errors end as one line and an exit code, never a
    traceback."""

    @wraps(fn)
    def wrapper(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except BadInput as exc:
            fail(str(exc), 2)
        except HarnessError as exc:
            fail(str(exc), 1)
        except KeyboardInterrupt:
            fail("interrupted", 130)

    return wrapper
