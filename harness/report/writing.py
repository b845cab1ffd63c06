"""Where a report goes and in what format. `--format` other than the terminal writes under
`reports/`: the repository's own `reports/` folder when the harness runs from a source
checkout, else a `reports/` folder in the current directory (an installed package's folder
is no place for a user's output)."""

from __future__ import annotations

import re
from datetime import datetime
from pathlib import Path
from typing import Callable

from ..errors import BadInput
from ..fs import check_writable
from ..outcomes import Outcomes
from ..paths import bundled_dir
from .document import Document
from .plots import render_png
from .to_csv import render_csv
from .to_html import render_html
from .to_json import render_json
from .to_markdown import render_markdown
from .to_terminal import render_terminal

FILE_FORMATS = ("md", "html", "json", "csv")


def reports_dir() -> Path:
    """The checkout's reports/ folder in a source checkout; ./reports otherwise."""
    bundled = bundled_dir("reports")
    if "_assets" not in bundled.parts and bundled.is_dir():
        return bundled
    return Path.cwd() / "reports"


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "-", text).strip("-")[:80] or "report"


def output_path(doc: Document, fmt: str, out: Path | None) -> Path:
    if out is not None:
        return out
    if doc.kind == "lineage":
        stem = f"lineage-{_slug(doc.data['loop_id'])}"
    elif doc.kind == "plan":
        stem = f"plan-{_slug(doc.data['baseline'])}"
    else:
        stem = "report" if doc.kind == "report" else f"compare-{_slug(doc.data['base'])}-vs-{_slug(doc.data['new'])}"
    stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
    folder = reports_dir()
    path = folder / f"{stem}-{stamp}.{fmt}"
    n = 2
    while path.exists():
        path = folder / f"{stem}-{stamp}-{n}.{fmt}"
        n += 1
    return path


def resolve_format(fmt: str | None, out: Path | None) -> str:
    """--format, or the one --out's suffix names, or the terminal; an --out that cannot be
    written is refused here, before any number is computed."""
    if out is not None:
        if Path(out).is_dir():
            raise BadInput(f"--out {out}: a folder; name the file to write")
        check_writable(Path(out), "--out", is_file=True)
    if fmt is not None:
        if fmt not in ("terminal", *FILE_FORMATS):
            raise BadInput(f"--format {fmt}: expected one of terminal, {', '.join(FILE_FORMATS)}")
        if fmt == "terminal" and out is not None:
            raise BadInput("--out needs a file format (--format md, html, json or csv)")
        return fmt
    if out is None:
        return "terminal"
    suffix = out.suffix.lower().lstrip(".")
    suffix = {"markdown": "md", "htm": "html"}.get(suffix, suffix)
    if suffix not in FILE_FORMATS:
        raise BadInput(f"--out {out}: cannot tell the format from the suffix; add --format md|html|json|csv")
    return suffix


# Writes the viewer's pages behind an HTML report of runs and links the report to them
# (view/static.attach_pages): given by the command, since the viewer is above reports.
PageWriter = Callable[[Document, Outcomes, Path], None]


def write(doc: Document, fmt: str, out: Path | None, console, outcomes: Outcomes | None = None,
          pages: PageWriter | None = None) -> Path | None:
    """Render the document; print it (terminal) or write it to a file and return its path.
    Markdown gets its plots as PNG files next to it; HTML embeds them, and over runs
    (`outcomes` and `pages` given) links to the viewer's pages of their trials, written beside it."""
    if fmt == "terminal":
        render_terminal(doc, console)
        return None
    path = output_path(doc, fmt, out)
    try:
        return _write_file(doc, fmt, path, outcomes, pages)
    except OSError as exc:
        raise BadInput(f"cannot write {exc.filename or path}: {exc.strerror or exc}") from None


def _write_file(doc: Document, fmt: str, path: Path, outcomes: Outcomes | None, pages: PageWriter | None) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if fmt == "md":
        images = {}
        for plot in doc.plots:
            image = path.with_name(f"{path.stem}-{plot.name}.png")
            image.write_bytes(render_png(plot))
            images[plot.name] = image.name
        text = render_markdown(doc, images)
    elif fmt == "html":
        if outcomes is not None and pages is not None:
            pages(doc, outcomes, path)
        text = render_html(doc, {plot.name: render_png(plot) for plot in doc.plots})
    elif fmt == "json":
        text = render_json(doc)
    else:
        text = render_csv(doc)
    path.write_text(text, encoding="utf-8")
    return path
