"""`harness select`: best@k, a run's first n answers per task ranked without its hidden
tests, and the expected result of the one submitted from k of them (predict/select.py)."""

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
    k: int = typer.Option(..., "--k", help="answers a ranker sees, drawn from the n (every k-subset counted)"),
    n: Optional[int] = typer.Option(None, "--n", help="candidates per task: the first-round answers of the first N trials (default: K)"),
    by: str = typer.Option(",".join(default(SelectConfig, "by")), help="strategies, comma-separated: exec, simulate, shortest, random"),
    judge_model: Optional[str] = typer.Option(None, help="simulate: the judge model (default: the run's own)"),
    api_base: Optional[str] = typer.Option(None, help="simulate: the judge's OpenAI-compatible endpoint (default: the run's)"),
    attempts: int = typer.Option(default(SelectConfig, "attempts"), help="simulate: predictions per candidate and public case"),
    aggregate: str = typer.Option(default(SelectConfig, "aggregate"),
                                  help="simulate: majority (more than half of a case's attempts predict a pass) or any"),
    seed: int = typer.Option(default(SelectConfig, "seed"), help="seed of the intervals' bootstrap"),
    runs_dir: Path = typer.Option(Path("runs"), help="where runs named by id are"),
    sandbox: str = typer.Option(default(SelectConfig, "sandbox"), help="docker, local, or auto"),
    workers: Optional[int] = typer.Option(None, help="parallel sandbox sessions (default: one per core)"),
):
    """Score each configuration and task's first N answers by each strategy, and give the
    expected recorded round-1 result of the best-scored among K drawn from them
    (rank_score@k, best@k exec, short1@k, random@k) beside pass@1 and pass@k; write the
    selection record into the run folder."""
    # pandas behind the outcome frames: loaded for this command only.
    from ..predict.select import select

    config = from_options(SelectConfig, dict(
        run=run, runs_dir=runs_dir, k=k, n=n, by=comma_list(by), judge_model=judge_model, api_base=api_base,
        attempts=attempts, aggregate=aggregate, seed=seed,
        sandbox=sandbox, workers=workers))
    path, record = select(config, notice=lambda m: err.print(m, markup=False, highlight=False))
    for summary in record.summary:
        table = Table(show_header=True, header_style="bold",
                      title=f"{summary.config}: {summary.tasks} tasks, k={record.k} of n={record.n} "
                            "(means over tasks, 95% task-bootstrap)")
        for col in ("figure", "value", "interval"):
            table.add_column(col)
        for name, f in summary.figures.items():
            table.add_row(name, f"{f.value:.3f}", f"[{f.low:.3f}, {f.high:.3f}]")
        console.print(table)
    console.print(f"selection record: {path}")
