"""Commands for suites: list, show, validate, import."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Optional

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn
from rich.table import Table

from ..errors import BadInput
from ..executor import ExecutorSettings, make_executor
from ..suite import find_suite, import_suite, known_suites, load_suite
from ..suite_validation import KILL_RATE_GOAL, RunKind, control_fails, declared_test_cases, default_workers, faulty_controls, validate_suite
from .app import app, console, err, handled, print_wide
from .options import EXECUTOR, RAY_ADDRESS, comma_list, executor_settings

suite_app = typer.Typer(no_args_is_help=True, help="Task suites: list, show, validate, import.")
app.add_typer(suite_app, name="suite")


@suite_app.command("list")
@handled
def suite_list():
    """Every suite that can be named: bundled, imported, and any other root."""
    table = Table(show_header=True, header_style="bold")
    for col in ("suite", "version", "tasks", "origin", "path"):
        table.add_column(col)
    for entry in known_suites():
        try:
            s = load_suite(entry.path, origin=entry.origin)
            table.add_row(s.name, s.version, str(len(s.tasks)), entry.origin, str(entry.path))
        except BadInput as exc:
            table.add_row(entry.name, "[red]broken[/]", "", entry.origin, str(exc))
    console.print(table)


@suite_app.command("show")
@handled
def suite_show(name: str = typer.Argument(..., help="a suite name or the path of a suite folder")):
    """A suite's tasks, their test counts and faulty controls, its content hash and place."""
    s = find_suite(name)
    console.print(f"[bold]{s.name}[/] {s.version}  ({s.origin}: {s.path})", highlight=False, soft_wrap=True)
    if s.description:
        console.print(s.description, markup=False, highlight=False, soft_wrap=True)
    console.print(f"language {', '.join(s.languages)}, image {', '.join(s.images)}", highlight=False)
    console.print(f"content hash {s.content_hash}", highlight=False, soft_wrap=True)
    table = Table(show_header=True, header_style="bold")
    for col in ("#", "task", "tests", "faulty", "solution files"):
        table.add_column(col)
    total = 0
    for i, t in enumerate(s.tasks, 1):
        n = declared_test_cases(t)
        total += n
        try:
            faulty = str(len(faulty_controls(t)))
        except BadInput:
            faulty = "?"
        table.add_row(str(i), t.slug, str(n), faulty, ", ".join(t.solution_files))
    console.print(table)
    console.print(f"{len(s.tasks)} tasks, {total} test cases")


def _progress_bar() -> Progress:
    return Progress(
        TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
        TimeRemainingColumn(), console=err, transient=True, disable=not err.is_terminal,
    )


def _rate(summary) -> str:
    if summary is None:
        return ""
    rate = summary.kill_rate
    text = f"{summary.killed}/{summary.compiled - summary.equivalent}"
    if rate is None:
        return text + " (none compiled)"
    style = "green" if rate >= KILL_RATE_GOAL else "red"
    return f"{text} [{style}]{rate:.0%}[/]"


def print_validation(validation, out: Path | None) -> None:
    table = Table(show_header=True, header_style="bold")
    table.add_column("task", no_wrap=True)
    for col in ("reference", "stub", "faulty", *(("mutants killed",) if validation.with_mutants else ()), "s",
                "problems"):
        table.add_column(col, overflow="fold")
    for t in validation.tasks:
        ref = next((r for r in t.runs if r.kind is RunKind.reference), None)
        stub = next((r for r in t.runs if r.kind is RunKind.stub), None)
        faulty = [r for r in t.runs if r.kind is RunKind.faulty]
        caught = sum(control_fails(r) for r in faulty)
        row = [
            t.slug,
            f"{ref.status.value} {ref.tests}/{t.test_cases}" if ref else "-",
            stub.status.value if stub else "-",
            f"{caught}/{len(faulty)}",
        ]
        if validation.with_mutants:
            row.append(_rate(t.mutants))
        seconds = t.seconds + (t.mutants.seconds if t.mutants else 0)
        meant = f" (the stub may pass: {t.stub_may_pass})" if t.stub_may_pass and stub and stub.passed else ""
        row += [f"{seconds:.0f}", "[red]" + "; ".join(t.problems) + "[/]" if t.problems else f"[green]ok{meant}[/]"]
        table.add_row(*row)
    print_wide(console, table)
    if validation.with_mutants:
        weak = [t for t in validation.tasks if t.mutants and t.mutants.kill_rate is not None
                and t.mutants.kill_rate < KILL_RATE_GOAL]
        for t in weak:
            console.print(f"[yellow]{t.slug}[/]: kill rate {t.mutants.kill_rate:.0%} is below the goal "
                          f"{KILL_RATE_GOAL:.0%}; survivors:")
            for s in t.mutants.survivors:
                if s.equivalent is None:
                    console.print("  " + s.mutant.describe(), markup=False, highlight=False)
    broken = validation.broken
    console.print(
        f"{len(validation.tasks)} tasks validated in {validation.seconds:.0f} s with {validation.workers} workers "
        f"({validation.backend}); {len(broken)} broken" + (f"; report in {out}" if out else ""),
        highlight=False,
    )


@suite_app.command("validate")
@handled
def suite_validate(
    name: str = typer.Argument(..., help="a suite name or the path of a suite folder"),
    mutants: bool = typer.Option(False, "--mutants", help="also measure how many mutants of each reference the tests kill"),
    tasks: Optional[str] = typer.Option(None, help="comma-separated task slugs (default: all)"),
    sandbox: str = typer.Option("auto", help="docker, local, or auto"),
    workers: Optional[int] = typer.Option(None, min=1, help="parallel sandbox sessions (default: cores + 1)"),
    out: Optional[Path] = typer.Option(None, help="where validation.json and surviving mutants go "
                                                  "(default with --mutants: reports/validate-<suite>)"),
    mutant_cap: Optional[int] = typer.Option(None, min=1, help="at most this many mutants per task, sampled"),
    seed: int = typer.Option(0, help="seed of the mutant sample"),
    as_json: bool = typer.Option(False, "--json", help="print the validation report as JSON"),
    executor: Optional[str] = EXECUTOR,
    ray_address: Optional[str] = RAY_ADDRESS,
):
    """Check every task: the stub fails, the reference passes, each faulty control compiles
    and fails. Exit 1 when a task breaks a rule."""
    s = find_suite(name)
    selected = comma_list(tasks) or None
    if selected is not None:
        s.select(selected)
    if out is None and mutants:
        out = Path("reports") / f"validate-{s.name}"
    settings = executor_settings(executor, ray_address) or ExecutorSettings.from_env()
    # Local: one worker more than cores (suite_validation.default_workers); a cluster: all its slots.
    workers = workers or (default_workers() if settings.kind == "local" else None)
    where = make_executor(settings, sandbox=sandbox, workers=workers,
                          notice=lambda m: err.print(m, markup=False, highlight=False))
    with where, _progress_bar() as bar:
        job = bar.add_task(f"validate {s.name}", total=None)

        def progress(done: int, total: int, note: str) -> None:
            bar.update(job, completed=done, total=total, description=f"validate {s.name}: {note}")

        validation = validate_suite(s, where, tasks=selected, mutants=mutants, progress=progress,
                                    out=out, mutant_cap=mutant_cap, mutant_seed=seed)
    if as_json:
        sys.stdout.write(validation.model_dump_json(indent=2) + "\n")
    else:
        print_validation(validation, out)
    raise typer.Exit(1 if validation.broken else 0)


@suite_app.command("import")
@handled
def suite_import(
    path: Path = typer.Argument(..., help="a folder of Exercism-layout exercises (one sub-folder each)"),
    name: str = typer.Option(..., "--name", help="the suite's name"),
    replace: bool = typer.Option(False, help="overwrite an imported suite of the same name"),
    unseen: bool = typer.Option(False, help="declare its tasks a held-out pool (e.g. imported after the evaluated "
                                            "models' training cutoff): reports split seen and unseen tasks"),
):
    """Register a folder of exercises, copied unchanged, as a suite in the user suites folder."""
    s = import_suite(path, name, replace=replace, unseen=unseen,
                     notice=lambda line: err.print(line, markup=False, highlight=False))
    console.print(f"imported {len(s.tasks)} tasks as suite {s.name} at {s.path} (hash {s.content_hash[:12]})",
                  highlight=False)
