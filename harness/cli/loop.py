"""`harness loop`: evaluate, build a curriculum from the failures, train GRPO, evaluate the
new checkpoint, and again; `--resume` continues a loop that was stopped or crashed. The
options and `--config FILE` become a LoopConfig; harness.loop does the work."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Optional

import typer
from rich.console import Console
from rich.table import Table

from ..errors import BadInput
from ..loop.config import load_loop_config
from ..serve.launch import ServeSettings
from .app import app, console, err, handled
from .options import comma_list, default
from .run import RunProgress


def print_lineage(lineage) -> None:
    table = Table(title=f"loop {lineage.loop_id}: {lineage.status}", header_style="bold")
    for col in ("iter", "checkpoint", "parent", "curriculum", "trained on", "eval run", "round 1", "two rounds", "bar"):
        table.add_column(col, justify="right" if col in ("iter", "round 1", "two rounds") else "left")
    for it in lineage.iterations:
        bar = "-" if it.bar is None else ("PASS" if it.bar.passed else "FAIL") + " " + ", ".join(
            f"{s.scope} {s.difference:+.2f}" for s in it.bar.scopes)
        table.add_row(
            str(it.index), it.label, it.parent or "-",
            ", ".join(f"{c.name} ({c.repair_tasks}, {c.content_hash[:8]})" for c in it.curricula) or "-",
            ", ".join(it.trained_on_tasks) or "-", it.eval_run or "-",
            "-" if it.first_round_mean is None else f"{it.first_round_mean:.2f}",
            "-" if it.two_round_mean is None else f"{it.two_round_mean:.2f}", bar)
    # Off a terminal (a pipe, a log file) the table keeps its natural width.
    out = console if console.is_terminal else Console(file=console.file, width=250, color_system=None, highlight=False)
    out.print(table)
    if lineage.stop_reason:
        console.print(f"stopped early: {lineage.stop_reason}", markup=False, highlight=False)
    console.print(f"lineage: harness report --lineage {lineage.loop_id}", markup=False, highlight=False)


@app.command("loop")
@handled
def loop_cmd(
    suite: Optional[str] = typer.Option(None, help="suite name or folder"),
    base: Optional[str] = typer.Option(None, help="base model: hub id or local folder"),
    init_adapter: Optional[str] = typer.Option(None, "--init-adapter",
        help="start from this adapter (a card name) instead of the base model"),
    kind: Optional[str] = typer.Option(None, help="repair (default) or tests: each evaluation a test-writing run, "
                                       "each iteration trained on its exported suites"),
    trainer: Optional[str] = typer.Option(None, help="tests loops: grpo (default; the tests environment), sft (the "
                                          "valid suites) or dpo (the preference pairs)"),
    iterations: Optional[int] = typer.Option(None, help="train-and-evaluate iterations after the first evaluation"),
    trials: Optional[int] = typer.Option(None, help="trials per task in every evaluation"),
    tasks: Optional[str] = typer.Option(None, help="comma-separated task slugs to evaluate (default: the whole suite)"),
    hold_out: Optional[str] = typer.Option(None, "--hold-out", help="comma-separated suite tasks kept out of every curriculum"),
    bar: Optional[float] = typer.Option(None,
        help="pre-registered minimum gain in tasks over the previous iteration, on held-in and held-out tasks separately; the loop "
             "stops when it fails twice in a row"),
    synth: Optional[bool] = typer.Option(None, "--synth/--no-synth",
        help="add repair tasks made from mutants of the references in the first iteration"),
    config: Optional[Path] = typer.Option(None, "--config",
        help="TOML: any option above, and tables eval, curriculum, serve, train (lora, sft, dpo, grpo, runtime), "
             "tests and export (a tests loop)"),
    backend: Optional[str] = typer.Option(None, help="serving backend for evaluations: vllm or local "
                                          f"(default: {default(ServeSettings, 'backend')})"),
    port: Optional[int] = typer.Option(None, help="port of the server each evaluation starts "
                                       f"(default: {default(ServeSettings, 'port')})"),
    device: Optional[str] = typer.Option(None, help="local backend: cpu, cuda or auto"),
    loop_id: Optional[str] = typer.Option(None, "--loop-id", help="name the loop (default: timestamp and random suffix)"),
    resume: Optional[str] = typer.Option(None, help="continue loop ID from where it stopped"),
    runs_dir: Path = typer.Option(Path("runs"), "--runs-dir", help="where runs, training runs and loops go"),
):
    """The closed loop: evaluate the current model, build a repair curriculum from its
    failures, train GRPO from the current adapter, evaluate the new checkpoint; repeat.
    With --kind tests: evaluate test writing, export the suites, train on them (--trainer).

    Every checkpoint's adapter, parent, curriculum hash, trained-on tasks and evaluation run
    go into runs/loops/ID/lineage.json; `harness report --lineage ID` shows per task what
    changed along the lineage."""
    # The orchestrator reads outcome frames with pandas (half a second to import): loaded for this command only.
    from ..loop.orchestrator import resume_loop, start_loop

    given: dict[str, object] = dict(suite=suite, base=base, init_adapter=init_adapter, kind=kind, trainer=trainer,
                 iterations=iterations, trials=trials,
                 tasks=comma_list(tasks), hold_out=comma_list(hold_out), bar=bar)
    given = {k: v for k, v in given.items() if v is not None}
    serve = {k: v for k, v in dict(backend=backend, port=port, device=device).items() if v is not None}
    if serve:
        given["serve"] = serve
    if synth is not None:
        given["curriculum"] = {"synth_first": synth}
    notice = lambda m: err.print(m, markup=False, highlight=False)  # noqa: E731
    progress = lambda: RunProgress(err)  # noqa: E731  (one per evaluation: its counts are that run's)
    if resume is not None:
        if given or config is not None or loop_id is not None:
            raise BadInput("--resume continues a loop with its own config; drop the other options")
        lineage = resume_loop(resume, runs_dir=runs_dir, log=notice, console=err, progress=progress)
    else:
        loop_config = load_loop_config(config, given)
        lineage = start_loop(loop_config, runs_dir=runs_dir, loop_id=loop_id, command_line=["harness", *sys.argv[1:]],
                             log=notice, console=err, progress=progress)
    print_lineage(lineage)
