"""Commands for the sandbox: the engine, the image, and testing one solution."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Optional

import typer

from ..errors import BadInput, SandboxUnavailable
from ..exercism_results import exercism_results
from ..fs import atomic_write, check_writable
from ..languages import LAYOUTS, layout_named
from ..languages.registry import language_for
from ..sandbox import make_sandbox
from ..sandbox.engine import LOCAL_PACKAGES, ensure_engine, install_packages
from ..sandbox.image import ImageInfo, build_images, image_tag
from ..sandbox.local import LocalSandbox
from ..task import load_task
from .app import app, console, err, handled
from .testreport_table import print_test_report

image_app = typer.Typer(no_args_is_help=True, help="The sandbox images, one per language.")
sandbox_app = typer.Typer(no_args_is_help=True, help="The sandbox: engine, images, backends.")
app.add_typer(image_app, name="image")
app.add_typer(sandbox_app, name="sandbox")

_LANGUAGES_HELP = "a language whose image (repeat for several; default: every language the harness has)"


def _languages(named: list[str] | None) -> list[str]:
    return [layout_named(n, "--language").name for n in named] if named else list(LAYOUTS)


def _build(named: list[str] | None, force: bool = False) -> list[ImageInfo]:
    log = lambda m: err.print(m, markup=False, highlight=False)  # noqa: E731
    return build_images(_languages(named), force=force, log=log)


@image_app.command("build")
@handled
def image_build(force: bool = typer.Option(False, help="rebuild even if the content tag exists"),
                language: Optional[list[str]] = typer.Option(None, help=f"{_LANGUAGES_HELP} to build")):
    """Build the toolchain images (offline base via debootstrap when no registry answers).
    A run builds the images its suite needs on first use; this builds them ahead."""
    for info in _build(language, force):
        if info.path == "present":
            console.print(f"{info.tag} present ({info.image_id[:19]}); nothing to build")
        else:
            console.print(f"built {info.tag} ({info.image_id[:19]}) on the {info.path} in {info.seconds:.0f} s")


@image_app.command("tag")
@handled
def image_tag_cmd(language: Optional[list[str]] = typer.Option(None, help=f"{_LANGUAGES_HELP} to name")):
    """Print the content tag each language's build context would have."""
    for name in _languages(language):
        console.print(image_tag(name))


@sandbox_app.command("up")
@handled
def sandbox_up(
    fallback: bool = typer.Option(True, help="when Docker cannot be had, say so and exit 0 (local backend)"),
    language: Optional[list[str]] = typer.Option(None, help=f"{_LANGUAGES_HELP} to build"),
):
    """Make the sandboxes usable: as root, install what the local backend needs from Debian;
    start (as root, install) the Docker engine; build the languages' images. Falls back to
    the local backend with a notice when Docker is impossible."""
    log = lambda m: err.print(m, markup=False, highlight=False)  # noqa: E731
    try:
        install_packages(LOCAL_PACKAGES, log)
    except SandboxUnavailable as exc:
        log(f"notice: the local backend may lack tools: {exc}")
    try:
        how = ensure_engine(log=log)
        log(f"docker engine: {how}")
        infos = _build(language)
        console.print("sandbox ready: docker, " + ", ".join(f"image {i.tag} ({i.path})" for i in infos))
    except SandboxUnavailable as exc:
        if not fallback:
            raise
        console.print(f"notice: Docker sandbox unavailable ({exc}); falling back to {LocalSandbox().isolation}")


@app.command("test")
@handled
def test_cmd(
    task_dir: Path = typer.Argument(..., help="an Exercism-layout task folder"),
    solution: Optional[Path] = typer.Option(None, help="folder holding the solution files (default: the task folder)"),
    reference: bool = typer.Option(False, help="test the task's own reference solution"),
    sandbox: str = typer.Option("auto", help="docker, local, or auto"),
    as_json: bool = typer.Option(False, "--json", help="print the TestReport as JSON (--format json)"),
    fmt: Optional[str] = typer.Option(None, "--format", help="terminal (default); json: the TestReport; exercism: "
                                      "results.json, version 3 of Exercism's test-runner interface"),
    out: Optional[Path] = typer.Option(None, "--out", help="write the json or exercism output to this file "
                                       "(default: standard output)"),
):
    """Build and test one solution in the sandbox and print the report. Exit code 0 when
    every test passed, 1 otherwise."""
    fmt = fmt or ("json" if as_json else "terminal")
    if fmt not in ("terminal", "json", "exercism"):
        raise BadInput(f"--format {fmt}: expected terminal, json or exercism")
    if as_json and fmt != "json":
        raise BadInput("--json is --format json; give one of them")
    if out is not None:
        if fmt == "terminal":
            raise BadInput("--out needs --format json or exercism")
        check_writable(out, "--out", is_file=True)
    task = load_task(task_dir)
    if reference and solution is not None:
        raise BadInput("--reference and --solution exclude each other")
    if solution is not None and not solution.is_dir():
        raise BadInput(f"{solution}: not a folder")
    workspace = task.reference_files() if reference else (solution or task.path)
    box = make_sandbox(sandbox, notice=lambda m: err.print(m, markup=False, highlight=False))
    with box.session(f"test {task.slug}", task.language) as session:
        report = language_for(task).run_tests(task, workspace, session)
    if fmt == "terminal":
        print_test_report(console, task.slug, report)
    else:
        if fmt == "json":
            text = report.model_dump_json(indent=2) + "\n"
        else:
            text = exercism_results(task, report).to_json()
        if out is None:
            sys.stdout.write(text)
        else:
            atomic_write(out, text.encode("utf-8"))
    raise typer.Exit(0 if report.passed else 1)
