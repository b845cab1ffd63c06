"""The root of the `harness` command and what every command shares. Commands are thin:
each turns its options into arguments of one function that tests call directly, and
typed errors become exit codes (2 for bad input, with one line; 1 when the work failed)."""

from __future__ import annotations

from functools import wraps

import typer
from rich.console import Console

from ..errors import BadInput, HarnessError

app = typer.Typer(
    add_completion=False, no_args_is_help=True,
    help="Evaluate coding models and LoRA adapters by execution, and train them on what they fail.",
)

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
