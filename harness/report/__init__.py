"""Reports: per-configuration headline numbers (`harness report`), per-task comparisons of
two configurations (`harness compare`), a loop's checkpoints in order (`harness report
--lineage`) and trial planning (`harness plan-trials`), rendered as rich terminal tables,
Markdown, one self-contained HTML file, JSON or CSV.

A report computes a typed result first (data.py; `compute_*`), renders it as a Document
(lead lines, notes, formatted tables, plot data, and the result's dump as its data;
`render_*`), and the Document is then written in a format; every number in it comes from
harness.stats. Notes that a
comparison is not like for like are computed from what the sources recorded, never typed.

    options.py       ReportOptions: accounting view, intervals, cohort, round, bar
    data.py          each report's typed result (a document's data) and their schemas
    document.py      the Document and its tables and plots
    formatting.py    how numbers are written
    scope.py         scope notes and training overlap
    cohort.py        a selected cohort and the marks it puts on intervals
    sections.py      the parts every builder shares: headline table, warnings, heatmap
    results.py       `harness report`            comparison.py    `harness compare`
    lineage.py       `harness report --lineage`  plan_trials.py   `harness plan-trials`
    plots.py         plots as PNG
    to_terminal.py, to_markdown.py, to_html.py, to_json.py, to_csv.py: one renderer each
    writing.py       the output format and file, and writing a document there

Each command module holds its compute_* and render_* steps, its builder (build_*: the
two), and the entry point its CLI command calls with a request model."""

from .comparison import CompareRequest, build_comparison, compare
from .document import Document
from .lineage import LineageRequest, build_lineage, lineage_report
from .options import ReportOptions
from .plan_trials import PlanRequest, build_plan, plan
from .plots import render_png
from .results import ReportRequest, build_report, report
from .to_csv import render_csv
from .to_html import render_html
from .to_json import render_json
from .to_markdown import render_markdown
from .to_terminal import render_terminal
from .writing import write

__all__ = [
    "CompareRequest", "Document", "LineageRequest", "PlanRequest", "ReportOptions", "ReportRequest",
    "build_comparison", "build_lineage", "build_plan", "build_report", "compare", "lineage_report", "plan",
    "render_csv", "render_html", "render_json", "render_markdown", "render_png", "render_terminal", "report", "write",
]
