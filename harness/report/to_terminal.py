"""A document as rich tables on a console."""

from __future__ import annotations

from rich.console import Console
from rich.markup import escape
from rich.measure import Measurement
from rich.table import Table as RichTable
from rich.text import Text

from .document import Document


def render_terminal(doc: Document, console) -> None:
    """Rich tables. Off a terminal (a pipe, a file) tables keep their natural width rather
    than wrapping numbers at 80 columns."""
    tables = []
    for table in doc.tables:
        rich_table = RichTable(title=Text(table.title, style="bold"),
                               caption=Text(table.caption) if table.caption else None, header_style="bold")
        for i, col in enumerate(table.columns):
            rich_table.add_column(Text(col), justify="right" if table.numeric(i) else "left")
        for row in table.rows:
            rich_table.add_row(*(Text(cell) for cell in row))
        tables.append(rich_table)
    if not console.is_terminal and tables:
        widest = max(Measurement.get(console, console.options.update_width(10_000), t).maximum for t in tables)
        if widest > console.width:
            console = Console(file=console.file, width=widest, no_color=console.no_color,
                              color_system=None, highlight=False)
    console.rule(f"[bold]{escape(doc.title)}")
    for line in doc.lead:
        style = "bold green" if line.startswith("PASS") else "bold red" if line.startswith("FAIL") else "bold"
        console.print(line, style=style, markup=False, highlight=False, soft_wrap=True)
    for warning in doc.warnings:
        console.print(f"! {warning}", style="bold yellow", markup=False, highlight=False, soft_wrap=True)
    for note in doc.notes:
        console.print(f"- {note}", markup=False, highlight=False, soft_wrap=True,
                      style="yellow" if note.startswith("Not like") else None)
    for rich_table in tables:
        console.print(rich_table)
