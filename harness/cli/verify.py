"""`harness verify`: structured rewards for candidate solutions of one task."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import List, Optional

import typer
from rich.table import Table

from ..errors import BadInput
from ..executor.base import BAD_INPUT
from ..sandbox import SandboxLimits, make_sandbox
from ..task import load_task
from ..verify import read_candidate, verify_many
from .app import app, console, err, handled

_STYLE = {"ok": "green", "compile_error": "yellow", "timeout": "yellow", "crash": "red", "forged": "magenta",
          "incomplete": "red", "malformed": "magenta", "error": "red"}


@app.command("verify")
@handled
def verify_cmd(
    task_dir: Path = typer.Argument(..., help="an Exercism-layout task folder"),
    candidates: List[Path] = typer.Argument(..., help="folders holding candidate solution files"),
    sandbox: str = typer.Option("auto", help="docker, local, or auto"),
    workers: Optional[int] = typer.Option(None, min=1, help="parallel sandbox sessions (default: one per core)"),
    timeout: Optional[float] = typer.Option(None, min=0.1, help="seconds for one run of the probe program"),
    as_json: bool = typer.Option(False, "--json", help="print one Verdict JSON object per line, with every check's "
                                 "calls and the values the reference and the candidate produced"),
):
    """Build each candidate with the task's probe, run its checks' calls in the sandbox and
    print its verdict: per-check outcomes, the reward R in [-1, 1], the status and the
    screen's flags."""
    task = load_task(task_dir)
    if len({c.resolve() for c in candidates}) != len(candidates):
        raise BadInput("a candidate folder is named twice")
    files = [read_candidate(c, task) for c in candidates]
    limits = SandboxLimits() if timeout is None else SandboxLimits(timeout_s=timeout)
    box = make_sandbox(sandbox, limits, notice=lambda m: err.print(m, markup=False, highlight=False))
    verdicts = verify_many(task, files, sandbox=box, workers=workers)
    bad = next((v.infra_error for v in verdicts if v.infra_error is not None and v.infra_error.kind == BAD_INPUT), None)
    if bad is not None:  # about the task (its reference does not run through the probe), not a candidate
        raise BadInput(bad.message)
    if as_json:
        for v in verdicts:
            sys.stdout.write(json.dumps(v.model_dump(mode="json")) + "\n")
        return
    table = Table(show_header=True, header_style="bold", title=f"{task.slug}: {len(verdicts)} candidate(s)")
    for col in ("candidate", "status", "reward", "checks", "flags", "reason"):
        table.add_column(col, overflow="fold")
    for path, v in zip(candidates, verdicts):
        flags = ", ".join(sorted({f.rule for f in v.flags}))
        tampered = f" tampered: {', '.join(v.tampered)}" if v.tampered else ""
        failed = [c.name for c in v.checks if not c.passed]
        why = v.reason or (f"failed: {'; '.join(failed)}" if failed else "")
        table.add_row(str(path), f"[{_STYLE[v.status.value]}]{v.status.value}[/]", f"{v.reward:+.3f}",
                      f"{v.checks_passed}/{len(v.checks)}", flags + tampered, why[:300])
    console.print(table)
