"""Commands for pools of Python functions: import."""

from __future__ import annotations

import datetime
from typing import Optional

import typer
from rich.table import Table

from ..errors import BadInput
from ..testwriting.pool import POOL_FILE, import_pool
from ..testwriting.pool.humaneval import PACKAGE
from .app import app, console, handled, print_wide

SHOWN = 40  # rows of the left-out table; pool.json lists every one

pool_app = typer.Typer(no_args_is_help=True, help="Pools of Python functions as test-writing tasks.")
app.add_typer(pool_app, name="pool")


def _date(text: Optional[str]) -> datetime.date | None:
    if text is None:
        return None
    try:
        return datetime.date.fromisoformat(text)
    except ValueError:
        raise BadInput(f"--written-after {text!r} is not a date (YYYY-MM-DD)") from None


@pool_app.command("import")
@handled
def pool_import(
    source: str = typer.Argument(PACKAGE, help=f"a folder or git checkout of Python code, or {PACKAGE!r} "
                                               "(HumanEval's problems from the installed package; a folder of "
                                               f"that name is ./{PACKAGE})"),
    name: str = typer.Option(..., "--name", help="the suite's name"),
    written_after: Optional[str] = typer.Option(
        None, "--written-after", metavar="DATE",
        help="date every task DATE (its code was written on that day or later) instead of git's dates "
             "or HumanEval's publication"),
    replace: bool = typer.Option(False, help="overwrite an imported suite of the same name"),
):
    """Make a suite of test-writing tasks from Python functions, each dated, and list the
    functions left out with why."""
    done = import_pool(source, name, written_after=_date(written_after), replace=replace)
    record = done.record
    if record.left_out:
        more = len(record.left_out) - SHOWN
        table = Table(show_header=True, header_style="bold", title="left out",
                      caption=f"and {more} more in {POOL_FILE}" if more > 0 else None)
        for col in ("file", "function", "why"):
            table.add_column(col)
        for item in record.left_out[:SHOWN]:
            table.add_row(item.file, item.function, item.reason)
        print_wide(console, table)
    dated = sum(t.written is not None for t in record.tasks)
    s = done.suite
    console.print(f"imported {len(s.tasks)} tasks ({dated} dated) as suite {s.name} at {s.path}; "
                  f"{len(record.left_out)} left out, listed in {s.path / POOL_FILE}", highlight=False,
                  soft_wrap=True)
