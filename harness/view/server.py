"""`harness view`: a local, read-only web server over a Site. It answers the pages'
addresses (pages.py) and the raw files of the runs it shows, nothing else: no form
changes anything on disk, and a raw file outside a run folder is never served.

Pages carry a Content-Security-Policy that allows only the viewer's own script and style
file, so even text that escaped escaping could not run."""

from __future__ import annotations

import socket
from pathlib import Path

from pydantic import BaseModel, Field

from ..errors import BadInput
from ..report import ReportOptions
from .pages import (
    ASSET_FILES, ASSETS, ROUND_PAGES, Links, NotFound, compare_page, compare_path, compare_task_page, curriculum_page, grid_page,
    lineage_page, not_found_page, trial_page,
)
from .site import Site, load_site

CSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; form-action 'self'; base-uri 'none'"
_MEDIA = {".css": "text/css", ".js": "text/javascript"}


class ViewRequest(BaseModel):
    sources: list[str]
    runs_dir: Path = Path("runs")
    host: str = "127.0.0.1"
    port: int = Field(8765, ge=0, le=65535)
    options: ReportOptions = ReportOptions()


def _missing(message: str):
    def render(links: Links) -> str:
        raise NotFound(message)
    return render


def create_app(site: Site):
    # fastapi takes a third of a second to import: only when the viewer serves
    from fastapi import FastAPI
    from fastapi.responses import FileResponse, HTMLResponse, PlainTextResponse, RedirectResponse

    app = FastAPI(title="harness view", docs_url=None, redoc_url=None, openapi_url=None)
    headers = {"Content-Security-Policy": CSP, "X-Content-Type-Options": "nosniff"}
    # The site does not change while it is served, and the grid is the one page whose
    # cost grows with the run: it is rendered once, before the first request.
    grid_html = grid_page(Links(site, "index.html")) if site.configs else None

    def page(path: str, render, *args) -> HTMLResponse:
        links = Links(site, path)
        try:
            return HTMLResponse(render(links, *args), headers=headers)
        except (NotFound, KeyError) as exc:
            message = exc.args[0] if exc.args else str(exc)
            return HTMLResponse(not_found_page(links, f"Nothing here: {message}."), status_code=404, headers=headers)

    @app.get("/")
    @app.get("/index.html")
    def grid():
        if not site.configs:
            target = (f"lineage/{next(iter(site.loop_slug.values()))}.html" if site.loops
                      else f"curriculum/{next(iter(site.curriculum_slug.values()))}.html")
            return RedirectResponse(target)
        return HTMLResponse(grid_html, headers=headers)

    @app.get("/assets/{name}")
    def asset(name: str):
        if name not in ASSET_FILES:
            return PlainTextResponse("no such asset", status_code=404)
        return FileResponse(ASSETS / name, media_type=_MEDIA[Path(name).suffix], headers=headers)

    @app.get("/trial/{config}/{task}/{trial}.html")
    def trial(config: str, task: str, trial: str):
        path = f"trial/{config}/{task}/{trial}.html"
        number = trial.removeprefix("trial-")
        if not number.isdigit():
            return page(path, _missing(f"no trial {trial}"))
        return page(path, lambda links: trial_page(links, site.config(config), task, int(number)))

    @app.get("/compare.html")
    def choose(base: str, new: str):
        if base not in site.slug or new not in site.slug:
            return page("compare.html", _missing(f"no config {base} or {new}"))
        return RedirectResponse(compare_path(site, base, new), status_code=303)

    @app.get("/compare/{base}/{new}/{name}.html")
    def compare(base: str, new: str, name: str):
        path = f"compare/{base}/{new}/{name}.html"
        rounds = {page_name: r for r, page_name in ROUND_PAGES.items()}
        if name in rounds:
            return page(path, lambda links: compare_page(links, site.config(base), site.config(new), rounds[name]))
        if name.startswith("task-"):
            return page(path, lambda links: compare_task_page(links, site.config(base), site.config(new),
                                                              name.removeprefix("task-")))
        return page(path, _missing(f"no page {name}"))

    @app.get("/lineage/{slug}.html")
    def lineage(slug: str):
        return page(f"lineage/{slug}.html", lambda links: lineage_page(links, site.loop(slug).lineage.loop_id))

    @app.get("/curriculum/{slug}.html")
    def curriculum(slug: str):
        return page(f"curriculum/{slug}.html", lambda links: curriculum_page(links, site.curriculum(slug).manifest.name))

    @app.get("/raw/{run_id}/{rel:path}")
    def raw(run_id: str, rel: str):
        root = site.runs.get(run_id)
        if root is None:
            return PlainTextResponse(f"no run {run_id} is shown", status_code=404)
        root = root.resolve()
        path = (root / rel).resolve()
        if not path.is_relative_to(root) or not path.is_file():
            return PlainTextResponse("no such file in the run", status_code=404)
        # Always as text: a file a model wrote is shown, never rendered or run.
        return PlainTextResponse(path.read_bytes().decode("utf-8", errors="replace"),
                                 headers={"X-Content-Type-Options": "nosniff", "Content-Security-Policy": "sandbox"})

    return app


def _check_port(host: str, port: int) -> None:
    with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host, port))
        except OSError as exc:
            raise BadInput(f"cannot listen on {host}:{port} ({exc.strerror or exc}); pick another with --port") from None


def prepare(request: ViewRequest) -> Site:
    """The site, loaded: a bad source is a one-line error before any server starts."""
    return load_site(request.sources, request.runs_dir, request.options)


def serve(request: ViewRequest, on_ready=None) -> None:
    """Serve until interrupted. `on_ready(url)` is called once the site is loaded."""
    # uvicorn: only when the viewer serves
    import uvicorn

    site = prepare(request)
    _check_port(request.host, request.port)
    app = create_app(site)
    config = uvicorn.Config(app, host=request.host, port=request.port, log_level="warning",
                            access_log=False)
    server = uvicorn.Server(config)
    if on_ready is not None:
        host = f"[{request.host}]" if ":" in request.host else request.host
        on_ready(f"http://{host}:{request.port}/")
    server.run()
