"""`harness select`: best@k, one of a run's first k answers per task chosen without its
hidden tests (predict/select.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer
from rich.table import Table

from ..predict.config import SelectConfig
from .app import app, console, err, handled
from .options import comma_list, default, from_options


@app.command("select")
@handled
def select_cmd(
    run: str = typer.Argument(..., help="the run (id or folder)"),
    k: int = typer.Option(..., "--k", help="candidates per task: the first-round answers of the first K trials"),
    by: str = typer.Option(",".join(default(SelectConfig, "by")), help="strategies, comma-separated: exec, simulate, shortest, random"),
    judge_model: Optional[str] = typer.Option(None, help="simulate: the judge model (default: the run's own)"),
    api_base: Optional[str] = typer.Option(None, help="simulate: the judge's OpenAI-compatible endpoint (default: the run's)"),
    seed: int = typer.Option(default(SelectConfig, "seed"), help="seed of the random choice and of ties"),
    runs_dir: Path = typer.Option(Path("runs"), help="where runs named by id are"),
    sandbox: str = typer.Option(default(SelectConfig, "sandbox"), help="docker, local, or auto"),
    workers: Optional[int] = typer.Option(None, help="parallel sandbox sessions (default: one per core)"),
):
    """Choose one answer per configuration and task among the first K trials, by each
    strategy; score it by its recorded round-1 result; write the selection record into the
    run folder and print best@k beside pass@1 and pass@k."""
    # pandas behind the outcome frames: loaded for this command only.
    from ..predict.select import select

    config = from_options(SelectConfig, dict(
        run=run, runs_dir=runs_dir, k=k, by=comma_list(by), judge_model=judge_model, api_base=api_base, seed=seed,
        sandbox=sandbox, workers=workers))
    path, record = select(config, notice=lambda m: err.print(m, markup=False, highlight=False))
    for summary in record.summary:
        table = Table(show_header=True, header_style="bold",
                      title=f"{summary.config}: {summary.tasks} tasks, k={record.k} (fractions of tasks, 95% task-bootstrap)")
        for col in ("figure", "value", "interval"):
            table.add_column(col)
        for name, f in summary.figures.items():
            table.add_row(name, f"{f.value:.3f}", f"[{f.low:.3f}, {f.high:.3f}]")
        console.print(table)
    console.print(f"selection record: {path}")
