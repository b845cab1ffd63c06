"""`harness curriculum`: repair curricula built from runs (`build`) or from mutants of a
suite's references (`synth`), and what one holds (`show`)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import List, Optional

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn
from rich.table import Table

from ..curriculum import build_from_runs, synthesize
from ..curriculum.config import BuildConfig, CurriculumSettings, SynthConfig
from ..curriculum.exports import read_candidates, read_manifest
from ..curriculum.taxonomy import FailureKind
from ..errors import BadInput
from ..training_files import curriculum_roots
from .app import app, console, err, handled
from .options import EXECUTOR, RAY_ADDRESS, comma_list, default, executor_settings, from_options

curriculum_app = typer.Typer(no_args_is_help=True, help="Repair curricula: build from runs, synth from mutants, show.")
app.add_typer(curriculum_app, name="curriculum")

# Defaults are the config models' own, and so are the bounds (checked by from_options).
_MAX = typer.Option(default(CurriculumSettings, "max_per_task"), "--max-per-task",
                    help="at most this many repair tasks per suite task and failure kind")
_KINDS = typer.Option(None, "--failure-kinds", help="comma-separated failure kinds to keep (default: all)")
_SEED = typer.Option(default(CurriculumSettings, "seed"),
                     help="seed of every sample: near-duplicates, the per-task cap, mutant screening")
_HOLD = typer.Option(None, "--hold-out", help="comma-separated suite tasks (slug or suite/slug) kept out entirely")
_ROOT = typer.Option(None, help="the folder curricula go in (default: ./curricula)")
_CONTROLS = typer.Option(default(CurriculumSettings, "controls"),
                         help="mutants of the reference kept as faulty controls of each repair task")
_CONTRACT = typer.Option(None, help="the prompt contract of the repair instructions and training prompts "
                               "(default: the suite language's: repair for C++, repair-python for Python)")
_SANDBOX = typer.Option(default(CurriculumSettings, "sandbox"), help="docker, local, or auto")
_WORKERS = typer.Option(None, help="parallel sandbox sessions (default: one per core)")
_TIMEOUT = typer.Option(default(CurriculumSettings, "run_timeout_s"), "--timeout",
                        help="seconds for one run of a test binary during validation")
_REPLACE = typer.Option(False, help="overwrite a curriculum of the same name")
_JSON = typer.Option(False, "--json", help="print the manifest as JSON")
# The config's fields that are not spelled as their option.
_FLAGS = {"run_timeout_s": "timeout"}


def parse_kinds(text: str | None) -> list[FailureKind] | None:
    known = {k.value: k for k in FailureKind}
    names = comma_list(text) or []
    unknown = next((name for name in names if name not in known), None)
    if unknown is not None:
        raise BadInput(f"unknown failure kind {unknown!r}; known: {', '.join(known)}")
    return [known[name] for name in names] or None


def _bar() -> Progress:
    return Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                    TimeRemainingColumn(), console=err, transient=True, disable=not err.is_terminal)


def _notice(message: str) -> None:
    err.print(message, markup=False, highlight=False)


def _run(work, config) -> None:
    with _bar() as bar:
        job = bar.add_task(f"curriculum {config.out}", total=None)

        def progress(done: int, total: int, note: str) -> None:
            bar.update(job, completed=done, total=total, description=f"{config.out}: {note}")

        built = work(config, progress=progress, notice=_notice)
    print_summary(built.manifest, built.path)
    if built.path is None:
        err.print("error: no candidate was kept; nothing written", markup=False, highlight=False)
        raise typer.Exit(1)


@curriculum_app.command("build")
@handled
def curriculum_build(
    runs: List[str] = typer.Argument(..., help="run ids (under --runs-dir) or run folders"),
    out: str = typer.Option(..., "--out", help="the curriculum's name (a folder under --root)"),
    max_per_task: int = _MAX,
    failure_kinds: Optional[str] = _KINDS,
    seed: int = _SEED,
    hold_out: Optional[str] = _HOLD,
    root: Optional[Path] = _ROOT,
    runs_dir: Path = typer.Option(default(BuildConfig, "runs_dir"), help="where run ids are looked up"),
    controls: int = _CONTROLS,
    mutants_per_task: int = typer.Option(default(BuildConfig, "mutants_per_task"),
                                         help="mutants screened per suite task to find the controls"),
    contract: Optional[str] = _CONTRACT,
    sandbox: str = _SANDBOX,
    workers: Optional[int] = _WORKERS,
    timeout: float = _TIMEOUT,
    replace: bool = _REPLACE,
    executor: Optional[str] = EXECUTOR,
    ray_address: Optional[str] = RAY_ADDRESS,
):
    """Every round whose tests failed becomes a candidate repair task: near-duplicates
    collapse, each is validated in the sandbox, at most K per task and failure kind are
    kept. Exit 1 when none is kept."""
    config = from_options(BuildConfig, dict(
        runs=runs, out=out, root=root, runs_dir=runs_dir, max_per_task=max_per_task,
        failure_kinds=parse_kinds(failure_kinds), seed=seed, hold_out=comma_list(hold_out) or [], controls=controls,
        mutants_per_task=mutants_per_task, contract=contract, sandbox=sandbox, workers=workers,
        run_timeout_s=timeout, replace=replace, executor=executor_settings(executor, ray_address),
    ), _FLAGS)
    _run(build_from_runs, config)


@curriculum_app.command("synth")
@handled
def curriculum_synth(
    suite: str = typer.Option(..., "--suite", help="the suite whose references are mutated (name or folder)"),
    out: str = typer.Option(..., "--out", help="the curriculum's name (a folder under --root)"),
    tasks: Optional[str] = typer.Option(None, help="comma-separated task slugs (default: all)"),
    max_per_task: int = _MAX,
    failure_kinds: Optional[str] = _KINDS,
    seed: int = _SEED,
    hold_out: Optional[str] = _HOLD,
    root: Optional[Path] = _ROOT,
    controls: int = _CONTROLS,
    mutants_per_task: int = typer.Option(default(SynthConfig, "mutants_per_task"),
                                         help="mutants of each reference screened as starting points"),
    contract: Optional[str] = _CONTRACT,
    sandbox: str = _SANDBOX,
    workers: Optional[int] = _WORKERS,
    timeout: float = _TIMEOUT,
    replace: bool = _REPLACE,
    executor: Optional[str] = EXECUTOR,
    ray_address: Optional[str] = RAY_ADDRESS,
):
    """Repair tasks from the suite's own references: each mutant that builds and fails a
    test is a starting point, validated like a run's. Exit 1 when none is kept."""
    config = from_options(SynthConfig, dict(
        suite=suite, tasks=comma_list(tasks) or None, out=out, root=root, max_per_task=max_per_task,
        failure_kinds=parse_kinds(failure_kinds), seed=seed, hold_out=comma_list(hold_out) or [], controls=controls,
        mutants_per_task=mutants_per_task, contract=contract, sandbox=sandbox, workers=workers,
        run_timeout_s=timeout, replace=replace, executor=executor_settings(executor, ray_address),
    ), _FLAGS)
    _run(synthesize, config)


def find_curriculum(ref: str, root: Path | None) -> Path:
    """A curriculum folder by path, or by name under --root or the curriculum roots."""
    path = Path(ref)
    if (path / "manifest.json").is_file():
        return path
    roots = [root] if root is not None else curriculum_roots()
    for r in roots:
        if (r / ref / "manifest.json").is_file():
            return r / ref
    raise BadInput(f"no curriculum {ref!r} (looked in {', '.join(str(r) for r in roots)})")


def print_summary(manifest, path: Path | None) -> None:
    s = manifest.summary
    where = f" at {path}" if path is not None else ""
    console.print(f"[bold]{manifest.name}[/] (from {manifest.made_from}){where}", highlight=False)
    if path is not None:
        console.print(f"content hash {manifest.content_hash}; contract {manifest.contract.name} "
                      f"{manifest.contract.version}; source tasks: {', '.join(manifest.source_tasks)}",
                      highlight=False, markup=False)
    console.print(f"{s.candidates} candidates, [green]{s.kept} kept[/], {s.candidates - s.kept} dropped; "
                  f"{s.sandbox_runs} sandbox runs in {s.validation_seconds:.0f} s on {s.workers} worker(s) ({s.backend})",
                  highlight=False)
    if s.dropped:
        table = Table(show_header=True, header_style="bold", title="dropped, by reason")
        table.add_column("reason")
        table.add_column("candidates", justify="right")
        for reason, n in s.dropped.items():
            table.add_row(reason.value, str(n))
        console.print(table)
    if s.by_kind:
        kinds = list(s.by_kind)
        table = Table(show_header=True, header_style="bold", title="failure kinds: kept/seen")
        table.add_column("task")
        for k in kinds:
            table.add_column(k.value, justify="right")
        for task, counts in s.by_task.items():
            table.add_row(task, *(f"{counts[k].kept}/{counts[k].seen}" if k in counts else "" for k in kinds))
        table.add_row("[bold]all[/]", *(f"{s.by_kind[k].kept}/{s.by_kind[k].seen}" for k in kinds))
        console.print(table)


@curriculum_app.command("show")
@handled
def curriculum_show(
    name: str = typer.Argument(..., help="a curriculum name or folder"),
    root: Optional[Path] = typer.Option(None, help="the folder to look in (default: the curriculum roots)"),
    dropped: bool = typer.Option(False, "--dropped", help="also list each dropped candidate and why"),
    as_json: bool = _JSON,
):
    """Kept and dropped counts by reason, the failure taxonomy per task and kind."""
    folder = find_curriculum(name, root)
    manifest = read_manifest(folder)
    if as_json:
        sys.stdout.write(manifest.model_dump_json(indent=2) + "\n")
        return
    print_summary(manifest, folder)
    if dropped:
        table = Table(show_header=True, header_style="bold", title="dropped candidates")
        for col in ("source task", "kind", "reason", "origin", "why"):
            table.add_column(col, overflow="fold")
        for c in read_candidates(folder):
            if c.get("dropped"):
                o = c["origin"]
                origin = (f"{o['run_id']}/{o['config']} trial {o['trial']} round {o['round']}" if o["type"] == "run"
                          else f"mutant {o['file']}:{o['line']} {o['operator']}")
                table.add_row(c["source_task"], c.get("kind") or "", c["dropped"], origin, c.get("why") or "")
        console.print(table)
