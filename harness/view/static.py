"""The viewer's pages as files that open without a server: `harness view ... --out DIR`,
and the pages that `harness report/compare --format html` write beside their report and
link it to. Every page the grid, a comparison, a loop or a curriculum links to is written,
so no link of an exported site leads nowhere; raw files are linked where they lie."""

from __future__ import annotations

import shutil
from pathlib import Path
from urllib.parse import quote, urlencode

from ..outcomes import Outcomes
from ..report import Document
from .pages import (
    ASSET_FILES, ASSETS, ROUND_PAGES, Links, NotFound, changed_tasks, comparison, compare_page, compare_path, compare_task_page,
    compare_task_path, curriculum_page, curriculum_path, grid_page, lineage_page, lineage_path, trial_page, trial_path,
)
from .site import Site


def _write(out: Path, path: str, text: str) -> None:
    target = out / path
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(text, encoding="utf-8")


def export_site(site: Site, out: Path, comparisons: list[tuple[str, str]] | None = None) -> int:
    """Write every page of the site under `out`, the pages the server answers: the grid,
    every trial, every comparison (by default of every ordered pair of configs, each in
    all three round views, and its changed tasks), loops and curricula. Returns how many
    pages were written."""
    out.mkdir(parents=True, exist_ok=True)
    (out / "assets").mkdir(exist_ok=True)
    for name in ASSET_FILES:
        shutil.copyfile(ASSETS / name, out / "assets" / name)
    if comparisons is None:
        comparisons = [(b, n) for b in site.configs for n in site.configs if b != n] if site.tested else []
    pages = 0

    def page(path: str, render, *args) -> None:
        nonlocal pages
        _write(out, path, render(Links(site, path, static_dir=out, comparisons=comparisons), *args))
        pages += 1

    if site.configs:
        page("index.html", grid_page)
        for row in site.trials.itertuples(index=False):
            if site.trial_dir(row.config, row.task, row.trial) is not None:
                page(trial_path(site, row.config, row.task, row.trial), trial_page, row.config, row.task, row.trial)
    for base, new in comparisons:
        try:
            comparison(site, base, new)
        except NotFound:
            continue  # no shared task with a counted trial: the server answers it with "nothing here"
        for round_no in ROUND_PAGES:
            page(compare_path(site, base, new, round_no), compare_page, base, new, round_no)
        for record in changed_tasks(site.comparisons[(base, new)]):
            page(compare_task_path(site, base, new, record["task"]), compare_task_page, base, new, record["task"])
    for loop in site.loops:
        page(lineage_path(site, loop.lineage.loop_id), lineage_page, loop.lineage.loop_id)
    for c in site.curricula:
        page(curriculum_path(site, c.manifest.name), curriculum_page, c.manifest.name)
    return pages


def pages_dir(report_file: Path) -> Path:
    """Where a report file's pages go: `<name>.pages/` beside it."""
    return report_file.with_name(f"{report_file.stem}.pages")


def attach_pages(doc: Document, outcomes: Outcomes, report_file: Path) -> None:
    """Write the pages behind an HTML report of runs and link the report to them: the
    report's configs to their columns of the grid, a comparison's changed tasks to their
    side-by-side pages. Sources without trial folders (outcomes files, Aider results)
    have no pages, and their report stays as it was."""
    if not any(info.run_dir for info in outcomes.configs.values()):
        return
    site = Site(outcomes)
    out = pages_dir(report_file)

    def href(path: str, **query: str) -> str:
        return quote(f"{out.name}/{path}", safe="/@+~._-") + (f"?{urlencode(query)}" if query else "")

    if doc.kind == "compare":
        base, new, round_no = doc.data["base"], doc.data["new"], doc.data["round"]
        site.comparisons[(base, new) if round_no is None else (base, new, round_no)] = doc
        export_site(site, out, [(base, new)])
        doc.pages = href(compare_path(site, base, new, round_no))
        doc.links = {r["task"]: href(compare_task_path(site, base, new, r["task"])) for r in changed_tasks(doc)}
    else:
        site.report = doc
        export_site(site, out, [])
        doc.pages = href("index.html")
        doc.links = {c: href("index.html", config=c) for c in site.configs}
