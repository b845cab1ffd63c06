"""`harness view`: the trials behind a report, in the browser."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from ..errors import BadInput
from ..fs import check_writable
from .app import app, err, handled
from .options import from_options
from .report import _options


@app.command("view")
@handled
def view_cmd(
    sources: list[str] = typer.Argument(..., help="run folders or ids (under --runs-dir), loops (folder or id), curriculum folders"),
    port: int = typer.Option(8765, "--port", help="the port to serve on"),
    host: str = typer.Option("127.0.0.1", "--host", help="the address to listen on (the pages show every trial: keep it local)"),
    runs_dir: Path = typer.Option(Path("runs"), help="where run and loop ids are looked up"),
    out: Optional[Path] = typer.Option(None, "--out", help="write the pages as static files into this folder instead of serving them"),
    resamples: int = typer.Option(10_000, help="bootstrap resamples of the headline intervals"),
    seed: int = typer.Option(0, help="bootstrap seed"),
):
    """A read-only page per run: configurations x tasks with every trial's outcome, filters,
    the report's headline numbers; each trial's messages, diffs and test reports;
    comparisons of two configurations; loops' lineages and curricula's sources.

    Served on http://HOST:PORT/ until Ctrl-C; with --out, written as files that open
    without a server."""
    # The viewer stands on pandas, jinja2 and fastapi: loaded for this command only.
    from ..view.server import ViewRequest, prepare, serve

    request = from_options(ViewRequest, dict(sources=sources, runs_dir=runs_dir, host=host, port=port,
                                             options=_options(None, resamples, seed)))
    if out is not None:
        from ..view.static import export_site

        if out.exists() and not out.is_dir():
            raise BadInput(f"--out {out}: a file; name a folder to write the pages into")
        check_writable(out, "--out")
        site = prepare(request)
        try:
            pages = export_site(site, out)
        except OSError as exc:
            raise BadInput(f"cannot write {exc.filename or out}: {exc.strerror or exc}") from None
        err.print(f"wrote {pages} pages under {out}; open {out / 'index.html' if site.configs else out}",
                  markup=False, highlight=False)
        return
    serve(request, on_ready=lambda url: err.print(f"serving {url} (Ctrl-C stops)", markup=False, highlight=False))
