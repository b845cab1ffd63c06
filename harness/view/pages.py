"""Every page of the viewer, rendered from the Jinja templates beside this module with
autoescaping on: whatever a model wrote reaches the page as text, never as markup.

A page is addressed by a path relative to the site's root (`index.html`,
`trial/<config>/<task>/trial-<k>.html`, ...); the server answers those paths and the
static export writes files at them, and every link is relative, so one rendering serves
both. Only raw files differ: the server serves them under `raw/`, a static page points at
the run folder itself."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from urllib.parse import quote, urlencode

import pandas as pd
from jinja2 import Environment, FileSystemLoader, select_autoescape

from ..errors import BadInput
from ..report import Document, build_comparison, build_lineage
from .site import Site
from .trial import TrialView, diff_files, read_trial

ASSETS = Path(__file__).parent / "assets"
ASSET_FILES = ("view.css", "view.js")

# Outcome codes of a trial in the grid: solved in round 1, solved in a later round, failed,
# infrastructure error (not counted), never written.
OUTCOME_NAMES = {"p1": "solved in round 1", "p2": "solved after feedback", "f": "failed",
                 "x": "failed round 1, then an infrastructure error (round 1 counts)",
                 "i": "infrastructure error", "m": "not written"}


ROUND_LABELS = {1: "round 1", 2: "within two rounds"}


class NotFound(Exception):
    """A page address that names nothing the site holds."""


# --- addresses ---------------------------------------------------------------------------


def trial_path(site: Site, config: str, task: str, trial: int) -> str:
    return f"trial/{site.slug[config]}/{task}/trial-{trial}.html"


# A comparison's pages by the round its labels follow: both rounds (the default), or one.
ROUND_PAGES = {None: "index", 1: "round-1", 2: "round-2"}


def compare_path(site: Site, base: str, new: str, round_no: int | None = None) -> str:
    return f"compare/{site.slug[base]}/{site.slug[new]}/{ROUND_PAGES[round_no]}.html"


def compare_task_path(site: Site, base: str, new: str, task: str) -> str:
    return f"compare/{site.slug[base]}/{site.slug[new]}/task-{task}.html"


def lineage_path(site: Site, loop_id: str) -> str:
    return f"lineage/{site.loop_slug[loop_id]}.html"


def curriculum_path(site: Site, name: str) -> str:
    return f"curriculum/{site.curriculum_slug[name]}.html"


@dataclass
class Links:
    """Hrefs from one page. `path` is the page's own address; `static_dir` is set when
    the pages are files written there, None when a server answers them."""

    site: Site
    path: str
    static_dir: Path | None = None
    comparisons: list[tuple[str, str]] = field(default_factory=list)  # pairs with pages (static)

    @property
    def served(self) -> bool:
        return self.static_dir is None

    @property
    def root(self) -> str:
        return "../" * self.path.count("/")

    def to(self, path: str, query: dict | None = None) -> str:
        href = self.root + quote(path, safe="/@+~._-")
        return href + ("?" + urlencode(query) if query else "")

    def grid(self, **query) -> str:
        return self.to("index.html", {k: v for k, v in query.items() if v})

    def trial(self, config: str, task: str, trial: int) -> str:
        return self.to(trial_path(self.site, config, task, trial))

    def compare(self, base: str, new: str, round_no: int | None = None) -> str:
        return self.to(compare_path(self.site, base, new, round_no))

    def compare_task(self, base: str, new: str, task: str) -> str:
        return self.to(compare_task_path(self.site, base, new, task))

    def lineage(self, loop_id: str) -> str:
        return self.to(lineage_path(self.site, loop_id))

    def curriculum(self, name: str) -> str:
        return self.to(curriculum_path(self.site, name))

    def asset(self, name: str) -> str:
        return self.to(f"assets/{name}")

    def raw(self, run_dir: Path, rel: str) -> str:
        if self.static_dir is None:  # served
            return self.to(f"raw/{Path(run_dir).name}/{rel}")
        page_dir = (self.static_dir / self.path).parent
        return quote(Path(os.path.relpath(Path(run_dir).absolute() / rel, page_dir.absolute())).as_posix(),
                     safe="/@+~._-")


# --- rendering ---------------------------------------------------------------------------


@lru_cache(maxsize=1)
def _environment() -> Environment:
    env = Environment(loader=FileSystemLoader(Path(__file__).parent / "templates"),
                      autoescape=select_autoescape(default=True, default_for_string=True),
                      trim_blocks=True, lstrip_blocks=True)
    env.globals.update(OUTCOME_NAMES=OUTCOME_NAMES)
    return env


def _render(template: str, links: Links, **context) -> str:
    site = links.site
    nav = dict(loops=[lp.lineage.loop_id for lp in site.loops],
               curricula=[c.manifest.name for c in site.curricula], has_grid=bool(site.configs))
    return _environment().get_template(template).render(url=links, site=site, nav=nav, **context)


# --- the grid ----------------------------------------------------------------------------


@dataclass
class TrialCell:
    trial: int
    code: str            # OUTCOME_NAMES key
    kinds: str           # failure kinds (and infra:<kind>), space-separated
    title: str
    href: str | None     # its page, when a run folder holds it


@dataclass
class ErrorRow:
    config: str
    task: str
    trial: int
    kind: str
    message: str
    href: str | None


ERRORS_SHOWN = 500  # the grid lists at most this many trials' errors; the filter finds the rest


@dataclass
class GridCell:
    config: str
    counts: tuple[int, int, int, int] | None   # n1, c1, n2, c2 over counted trials (stats.task_counts)
    trials: list[TrialCell]


_CODES = {"failed": "f", "partial": "x", "infra_error": "i"}


def _cells(links: Links) -> tuple[list[str], dict[tuple[str, str], list[TrialCell]], list[str]]:
    site = links.site
    linked = {name for name, info in site.outcomes.configs.items() if info.run_dir}
    trials = site.trials
    # The grid of a large run has one link per trial: each address is put together from
    # its config's and task's once-quoted parts rather than quoted whole every time.
    prefix = {c: links.to(f"trial/{site.slug[c]}/") for c in linked}
    task_part = {t: quote(t, safe="@+~._-") for t in trials["task"].unique()}
    by_cell: dict[tuple[str, str], list[TrialCell]] = {}
    kinds: set[str] = set()
    columns = ("config", "task", "trial", "status", "round1", "passed_round", "kinds", "infra")
    for config, task, trial, status, round1, passed_round, failed, infra in zip(*(trials[c].tolist() for c in columns)):
        code = ("p1" if round1 else "p2") if status == "passed" else _CODES.get(status, "m")
        tags = failed.split() + ([f"infra:{infra}"] if infra else [])
        kinds.update(tags)
        what = OUTCOME_NAMES[code] if code != "p2" else f"solved in round {passed_round or 2}"
        title = f"trial {trial}: {what}" + (f"; {', '.join(tags)}" if tags else "")
        href = f"{prefix[config]}{task_part[task]}/trial-{trial}.html" if config in linked and code != "m" else None
        by_cell.setdefault((config, task), []).append(TrialCell(int(trial), code, " ".join(tags), title, href))
    tasks = sorted({task for _, task in by_cell})
    return tasks, by_cell, sorted(kinds)


def grid_page(links: Links) -> str:
    site = links.site
    tasks, by_cell, kinds = _cells(links)
    counts = dict(zip(site.counts.index, zip(*(site.counts[c] for c in ("n1", "c1", "n2", "c2")))))
    rows = []
    for task in tasks:
        cells = []
        for config in site.configs:
            n = counts.get((config, task))
            counted = (int(n[0]), int(n[1]), int(n[2]), int(n[3])) if n else None  # n1, c1, n2, c2
            cells.append(GridCell(config, counted, by_cell.get((config, task), [])))
        rows.append((task, cells))
    errors = _errors(links, by_cell)
    return _render("grid.html", links, doc=site.report, rows=rows, kinds=kinds, total=len(site.trials),
                   models={c: site.outcomes.configs[c].model for c in site.configs},
                   errors=errors[:ERRORS_SHOWN], errors_left=max(0, len(errors) - ERRORS_SHOWN))


def _errors(links: Links, by_cell: dict[tuple[str, str], list[TrialCell]]) -> list[ErrorRow]:
    """Every trial that ended in an infrastructure error, with the error's first line."""
    trials = links.site.trials
    failed = trials[trials["infra"] != ""]
    hrefs = {(config, task, cell.trial): cell.href for (config, task), cells in by_cell.items() for cell in cells}
    return [ErrorRow(config, task, int(trial), infra, error, hrefs.get((config, task, trial)))
            for config, task, trial, infra, error in zip(*(failed[c].tolist() for c in
                                                          ("config", "task", "trial", "infra", "error")))]


# --- a trial -----------------------------------------------------------------------------


def _trial_view(site: Site, config: str, task: str, trial: int) -> TrialView:
    trial_dir = site.trial_dir(config, task, trial)
    if trial_dir is None:
        raise NotFound(f"no trial folder for {config} {task} trial {trial}")
    run_dir = site.outcomes.configs[config].run_dir
    assert run_dir is not None  # trial_dir found the trial in it
    return read_trial(config, task, trial, trial_dir, Path(run_dir))


def _repair_link(links: Links, record) -> tuple[str, str | None] | None:
    """Where a repair exercise (curriculum.records.RepairRecord) came from: a description,
    and a link to the source trial's round if that run is shown."""
    if record is None:
        return None
    origin = record.origin
    if origin.type != "run":
        return (f"a mutant of {record.source_task}'s reference ({origin.operator} at {origin.file}:{origin.line})", None)
    text = f"run {origin.run_id}, {origin.config}, {origin.task} trial {origin.trial}, round {origin.round}"
    config = links.site.config_of_run(origin.run_id, origin.config)
    if config is None:
        return (text + " (that run is not among the sources shown)", None)
    return (text, links.trial(config, origin.task, origin.trial) + f"#round-{origin.round}")


def trial_page(links: Links, config: str, task: str, trial: int) -> str:
    site = links.site
    if config not in site.outcomes.configs:
        raise NotFound(f"no config {config}")
    view = _trial_view(site, config, task, trial)
    return _render("trial.html", links, view=view, row=site.trial_row(config, task, trial),
                   info=site.outcomes.configs[config], repair=_repair_link(links, view.repair))


# --- comparisons -------------------------------------------------------------------------


def comparison(site: Site, base: str, new: str, round_no: int | None = None) -> Document:
    """compare's document for the pair, its labels following `round_no` (None: both)."""
    for name in (base, new):
        if name not in site.outcomes.configs:
            raise NotFound(f"no config {name}")
    if base == new:
        raise NotFound("a config compared with itself")
    key = (base, new) if round_no is None else (base, new, round_no)
    if key not in site.comparisons:
        options = site.options.model_copy(update={"round": round_no})
        try:
            site.comparisons[key] = build_comparison(site.outcomes, base, new, options)
        except BadInput as exc:
            raise NotFound(str(exc)) from None
    return site.comparisons[key]


def changed_tasks(doc: Document) -> list[dict]:
    """The per-task records of a comparison whose success rate changed in a round it shows,
    regressions first."""
    return [r for r in doc.data["tasks"] if r["changed"]]


def compare_page(links: Links, base: str, new: str, round_no: int | None = None) -> str:
    doc = comparison(links.site, base, new, round_no)
    changed = changed_tasks(doc)
    task_links = {r["task"]: links.compare_task(base, new, r["task"]) for r in changed}
    rounds = [(label, links.compare(base, new, r), r == round_no) for r, label in
              ((None, "both rounds"), (1, "round 1"), (2, "within two rounds"))]
    return _render("compare.html", links, doc=doc, base=base, new=new, changed=changed, task_links=task_links,
                   rounds=rounds, shown=doc.data["rounds_shown"])


@dataclass
class Side:
    config: str
    trials: list             # rows of site.trials for the task
    views: dict[int, TrialView]
    failing: dict[str, int]  # test name -> trials whose last test report failed it
    messages: dict[str, str]  # test name -> one failure message
    reports: int             # trials with a test report
    pick: TrialView | None   # the trial whose final answer is shown


def _side(site: Site, config: str, task: str, want_success: bool, round_no: int) -> Side:
    rows = site.trials[(site.trials["config"] == config) & (site.trials["task"] == task)]
    views: dict[int, TrialView] = {}
    failing: dict[str, int] = {}
    messages: dict[str, str] = {}
    reports = 0
    for row in rows.itertuples(index=False):
        if site.trial_dir(config, task, row.trial) is None:
            continue
        view = _trial_view(site, config, task, row.trial)
        views[row.trial] = view
        last = next((r.report for r in reversed(view.rounds) if r.report is not None), None)
        if last is None:
            continue
        reports += 1
        for case in last.failing():
            failing[case.name] = failing.get(case.name, 0) + 1
            messages.setdefault(case.name, case.message or "")
        if not last.built and not last.tests:
            failing["(build)"] = failing.get("(build)", 0) + 1
            messages.setdefault("(build)", (last.message or "").strip().splitlines()[0] if last.message else "")
    solved = f"round{round_no}"
    done = [r for r in rows.itertuples(index=False) if r.done and r.trial in views]
    preferred = [r for r in done if bool(getattr(r, solved)) == want_success]
    pick = views[(preferred or done)[0].trial] if (preferred or done) else None
    return Side(config, list(rows.itertuples(index=False)), views, failing, messages, reports, pick)


def compare_task_page(links: Links, base: str, new: str, task: str) -> str:
    site = links.site
    doc = comparison(site, base, new)
    record = next((r for r in doc.data["tasks"] if r["task"] == task), None)
    if record is None:
        raise NotFound(f"{task} is not a task both {base} and {new} finished")
    # The side that did better shows a trial it solved, the other one it did not: in the
    # last round shown whose rate changed.
    round_no = next(r for r in reversed(doc.data["rounds_shown"]) if record[f"round{r}_change"] or r == 1)
    new_better = (record[f"round{round_no}_change"] or 0) > 0
    sides = [_side(site, base, task, not new_better, round_no), _side(site, new, task, new_better, round_no)]
    tests = sorted(set(sides[0].failing) | set(sides[1].failing))
    differing = [t for t in tests
                 if sides[0].failing.get(t, 0) / max(sides[0].reports, 1) != sides[1].failing.get(t, 0) / max(sides[1].reports, 1)]
    answers = None
    if sides[0].pick is not None and sides[1].pick is not None:
        answers = diff_files(sides[0].pick.final_files, sides[1].pick.final_files)
    return _render("compare_task.html", links, doc=doc, base=base, new=new, task=task, record=record,
                   sides=sides, differing=differing, answers=answers, new_better=new_better,
                   labels=[(ROUND_LABELS[r], record[f"round{r}_label"]) for r in doc.data["rounds_shown"]])


# --- loops and curricula -----------------------------------------------------------------


@dataclass
class Point:
    x: float
    y: float
    href: str
    title: str


def lineage_page(links: Links, loop_id: str) -> str:
    site = links.site
    loop = next((lp for lp in site.loops if lp.lineage.loop_id == loop_id), None)
    if loop is None:
        raise NotFound(f"no loop {loop_id}")
    doc = build_lineage(loop.lineage, loop.runs_dir, site.options)
    records = pd.DataFrame(doc.records)
    checkpoints = [c["checkpoint"] for c in doc.data["checkpoints"]]
    tasks = sorted(records["task"].unique()) if len(records) else []
    top = int(records["trials"].max()) if len(records) else 1
    width, height, pad = max(360, 110 * len(checkpoints) + 120), 260, 40
    span_x = max(len(checkpoints) - 1, 1)

    def xy(j: int, y: int) -> tuple[float, float]:
        return (pad + j * (width - 2 * pad) / span_x if len(checkpoints) > 1 else width / 2,
                height - pad - y * (height - 2 * pad) / max(top, 1))

    lines = []
    for i, task in enumerate(tasks):
        points = []
        offset = (i - (len(tasks) - 1) / 2) * min(3.0, 24.0 / max(len(tasks), 1))
        for j, checkpoint in enumerate(checkpoints):
            hit = records[(records["task"] == task) & (records["checkpoint"] == checkpoint)]
            if not len(hit) or hit.iloc[0]["round1"] is None or pd.isna(hit.iloc[0]["round1"]):
                continue
            r = hit.iloc[0]
            x, y = xy(j, int(r["round1"]))
            points.append(Point(x, y + offset, links.grid(config=loop.names.get(checkpoint, checkpoint), task=task),
                                f"{task} at {checkpoint}: {int(r['round1'])}/{int(r['trials'])} in round 1"))
        lines.append((task, i, points))
    axis = dict(width=width, height=height, pad=pad, top=top,
                ticks=[(y, xy(0, y)[1]) for y in range(top + 1)],
                labels=[(c, xy(j, 0)[0]) for j, c in enumerate(checkpoints)])
    return _render("lineage.html", links, doc=doc, loop=loop.lineage, lines=lines, axis=axis,
                   configs=set(site.configs))


def curriculum_page(links: Links, name: str) -> str:
    site = links.site
    source = next((c for c in site.curricula if c.manifest.name == name), None)
    if source is None:
        raise NotFound(f"no curriculum {name}")
    rows = [(record, _repair_link(links, record)) for record in source.records]
    return _render("curriculum.html", links, source=source, rows=rows)


def not_found_page(links: Links, message: str) -> str:
    return _render("not_found.html", links, message=message)
