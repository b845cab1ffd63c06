"""One TestReport as a terminal table (`harness sandbox test`); the statistical reports
live in harness.report."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table

from ..records import Status, TestReport

_STYLE = {Status.passed: "green", Status.failed: "red", Status.error: "yellow"}


def print_test_report(console: Console, title: str, report: TestReport) -> None:
    passed = sum(t.status is Status.passed for t in report.tests)
    head = f"[bold]{title}[/]: [{_STYLE[report.status]}]{report.status.value}[/]  {passed}/{len(report.tests)} tests"
    head += f"  build {report.build_seconds:.2f} s, run {report.run_seconds:.2f} s  ({report.backend})"
    if report.timeout:
        head += "  [yellow]timeout[/]"
    console.print(head)
    if report.tampered:
        console.print(f"[magenta]tampered (restored from the task):[/] {', '.join(report.tampered)}")
    if report.tests:
        table = Table(show_header=True, header_style="bold")
        table.add_column("test")
        table.add_column("status")
        table.add_column("message", overflow="fold")
        for t in report.tests:
            table.add_row(t.name, f"[{_STYLE[t.status]}]{t.status.value}[/]", (t.message or "")[:500])
        console.print(table)
    if report.message:
        console.print(report.message[:4000], markup=False, highlight=False)
    if report.output_truncated:
        console.print("[yellow]output truncated[/]")
