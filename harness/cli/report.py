"""`harness report` and `harness compare`: numbers per configuration, and what changed per
task between two configurations."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from ..errors import BadInput
from ..registered_bar import describe, register, write_registration
from .app import app, console, err, handled
from .options import from_options

_SOURCES_HELP = "run folders, run ids (under --runs-dir), outcomes files (.csv/.parquet) or Aider results folders"


_INTERVAL_HELP = ("what the intervals are about: tasks (a new draw of tasks like these, each run for new trials) "
                  "or trials (these same tasks, run for new trials)")


_ACCOUNTING_HELP = ("harness (default): infrastructure errors count nowhere; aider: agent exceptions, round timeouts "
                    "and exhausted provider retries count as failed trials, as Aider's benchmark counts them")


def _options(cohort, resamples, seed, round_no=None, bar=None, interval="tasks", accounting="harness", metric=None):
    # The report package and the statistics stand on pandas (half a second to import):
    # loaded when a report is asked for, not at every command's start.
    from ..report import ReportOptions
    from ..stats import parse_cohort

    if interval not in ("tasks", "trials"):
        raise BadInput(f"--interval {interval}: expected tasks or trials")
    return from_options(ReportOptions, dict(cohort=parse_cohort(cohort), resamples=resamples, seed=seed, round=round_no,
                                            bar=bar, interval=interval, accounting=accounting, metric=metric),
                        {"metric": "--metric"})


def _sources(sources, outcomes, aider):
    return ([("auto", s) for s in sources or []] + [("outcomes", str(p)) for p in outcomes or []]
            + [("aider", str(p)) for p in aider or []])


def _finish(path: Path | None) -> None:
    if path is not None:
        err.print(f"wrote {path}", markup=False, highlight=False)


@app.command("report")
@handled
def report_cmd(
    sources: Optional[list[str]] = typer.Argument(None, help=_SOURCES_HELP),
    outcomes: Optional[list[Path]] = typer.Option(None, "--outcomes",
        help="CSV or Parquet: config, task, trial, round1, round2 [, contract, suite, agent]"),
    aider: Optional[list[Path]] = typer.Option(None, "--aider", help="a folder of Aider benchmark .aider.results.json files"),
    runs_dir: Path = typer.Option(Path("runs"), help="where run ids are looked up"),
    interval: str = typer.Option("tasks", "--interval", help=_INTERVAL_HELP),
    cohort: Optional[str] = typer.Option(None, help="best:K keeps, per config, the K trials that solved the most tasks in --round"),
    round_no: Optional[int] = typer.Option(None, "--round", min=1, max=2,
        help="the round a --cohort is ranked by: 1, or 2 (within two rounds, the default)"),
    resamples: int = typer.Option(10_000, help="bootstrap resamples"),
    seed: int = typer.Option(0, help="bootstrap seed"),
    fmt: Optional[str] = typer.Option(None, "--format", help="terminal (default), md, html, json or csv"),
    out: Optional[Path] = typer.Option(None, help="output file (default: reports/report-<time>.<format>)"),
    lineage: Optional[str] = typer.Option(None, "--lineage",
        help="LOOP_ID (or its folder): per task, every checkpoint of a `harness loop` in order"),
    accounting: str = typer.Option("harness", "--accounting", help=_ACCOUNTING_HELP),
):
    """Numbers per configuration: tasks solved, intervals, recovery, pass@k, states, health.

    Round 1 and within two rounds, as mean tasks solved out of N with 95% intervals whose
    target is named (--interval); scope notes say when configurations, or one
    configuration's own trials, are not like for like. With --lineage, a loop's
    checkpoints in order instead: first-round successes per task, what improved and
    declined from the first to the last with compare's statistics, seen and unseen tasks
    apart."""
    # pandas behind the reports, jinja2 behind the pages: loaded for this command only.
    from ..report import LineageRequest, ReportRequest, lineage_report, report

    if lineage is not None:
        if sources or outcomes or aider:
            raise BadInput("--lineage reports one loop's own runs; drop the other sources")
        lineage_request = LineageRequest(loop=lineage, runs_dir=runs_dir,
                                         options=_options(cohort, resamples, seed, round_no, interval=interval, accounting=accounting),
                                         format=fmt, out=out)
        _finish(lineage_report(lineage_request, console)[1])
        return
    request = ReportRequest(sources=_sources(sources, outcomes, aider), runs_dir=runs_dir,
                            options=_options(cohort, resamples, seed, round_no, interval=interval, accounting=accounting),
                            format=fmt, out=out)
    from ..view.static import attach_pages

    _finish(report(request, console, attach_pages)[1])


@app.command("compare")
@handled
def compare_cmd(
    base: str = typer.Argument(..., help="a config among --from sources, a source with one config, or SOURCE:CONFIG"),
    new: str = typer.Argument(..., help="the same, for the new configuration"),
    from_: Optional[list[str]] = typer.Option(None, "--from", help=_SOURCES_HELP + " holding BASE and NEW by name"),
    outcomes: Optional[list[Path]] = typer.Option(None, "--outcomes", help="an outcomes file holding BASE and NEW"),
    aider: Optional[list[Path]] = typer.Option(None, "--aider", help="an Aider results folder holding BASE and NEW"),
    round_no: Optional[int] = typer.Option(None, "--round", min=1, max=2,
        help="the round of the per-task tests, labels and heatmap: 1, or 2 (within two rounds); default: both shown (a bar is judged "
             "within two rounds)"),
    bar: Optional[float] = typer.Option(None, "--pre-registered-bar",
        help="PASS only if NEW gains at least DELTA tasks (with --metric: DELTA of that share): its interval's lower bound at least "
             "DELTA; exit 1 on FAIL"),
    metric: Optional[str] = typer.Option(None, "--metric",
        help="written suites: valid, kill_rate or assertion_accuracy, the share the bar judges (default: tasks solved)"),
    runs_dir: Path = typer.Option(Path("runs"), help="where run ids are looked up"),
    interval: str = typer.Option("tasks", "--interval", help=_INTERVAL_HELP),
    cohort: Optional[str] = typer.Option(None, help="best:K keeps, per config, the K trials that solved the most tasks in --round"),
    resamples: int = typer.Option(10_000, help="bootstrap resamples"),
    seed: int = typer.Option(0, help="bootstrap seed"),
    fmt: Optional[str] = typer.Option(None, "--format", help="terminal (default), md, html, json or csv"),
    out: Optional[Path] = typer.Option(None, help="output file (default: reports/compare-<base>-vs-<new>-<time>.<format>)"),
    accounting: str = typer.Option("harness", "--accounting", help=_ACCOUNTING_HELP),
):
    """What changed per task from BASE to NEW, with paired statistics.

    Successes per task, the change and its label (Fisher's exact test, Holm-corrected) and
    the smallest p the trial counts allow; the difference in mean tasks solved with its
    interval and the suite-level stratified exact test; recovery side by side."""
    # pandas behind the reports, jinja2 behind the pages: loaded for this command only.
    from ..report import CompareRequest, compare

    request = CompareRequest(base=base, new=new, sources=_sources(from_, outcomes, aider), runs_dir=runs_dir,
                             options=_options(cohort, resamples, seed, round_no, bar, interval, accounting, metric),
                             format=fmt, out=out)
    from ..view.static import attach_pages

    doc, path = compare(request, console, attach_pages)
    _finish(path)
    if doc.verdict == "FAIL":
        raise typer.Exit(1)


@app.command("plan-trials")
@handled
def plan_trials_cmd(
    baseline: str = typer.Option(..., "--baseline",
        help="the baseline: a run, run id, outcomes file or Aider folder with one config, or SOURCE:CONFIG"),
    effect: float = typer.Option(..., "--effect", help="the change to detect, in tasks solved (negative: a loss)"),
    round_no: int = typer.Option(2, "--round", min=1, max=2, help="the round the change is in: 1, or 2 (within two rounds)"),
    alpha: float = typer.Option(0.05, help="the test's level"),
    power: float = typer.Option(0.8, help="the chance of detecting the change that the plan must reach"),
    simulations: int = typer.Option(1000, min=100, help="simulated comparisons per trial count"),
    seed: int = typer.Option(0, help="simulation seed"),
    max_trials: int = typer.Option(256, "--max-trials", min=1, help="give up beyond this many trials per task"),
    runs_dir: Path = typer.Option(Path("runs"), help="where run ids are looked up"),
    fmt: Optional[str] = typer.Option(None, "--format", help="terminal (default), md, html, json or csv"),
    out: Optional[Path] = typer.Option(None, help="output file"),
):
    """How many trials per task detect a change of --effect tasks with 80% power.

    By simulation from the baseline's per-task success rates: both configurations are run
    again with T trials per task, NEW's rates moved by the effect (a gain shared in
    proportion to each task's failure rate), and the suite-level stratified exact test
    must find the change at --alpha in its direction."""
    # pandas behind the reports: loaded for this command only.
    from ..report import PlanRequest, plan

    request = PlanRequest(baseline=baseline, effect=effect, round=round_no, alpha=alpha, power=power,
                          simulations=simulations, seed=seed, max_trials=max_trials, runs_dir=runs_dir,
                          format=fmt, out=out)
    _finish(plan(request, console)[1])


@app.command("preregister")
@handled
def preregister_cmd(
    base: str = typer.Argument(..., help="the base configuration, as the run names it (its config folder)"),
    new: str = typer.Argument(..., help="the new configuration, the same way"),
    delta: float = typer.Option(..., "--delta", help="NEW must gain at least DELTA (tasks solved, or the share of --metric)"),
    metric: str = typer.Option("solved", "--metric", help="solved (tasks solved), or for written suites: valid, kill_rate "
                                                          "or assertion_accuracy"),
    round_no: int = typer.Option(2, "--round", help="the round the bar is judged in: 1, or 2 (within two rounds)"),
    hypothesis: Optional[str] = typer.Option(None, "--hypothesis", help="what you expect and why, in words"),
    out: Path = typer.Option(..., "--out", help="the registration file to write (never overwritten); give it to "
                                               "`harness run --preregistered`"),
):
    """Register a bar before the run: write it, stamped with the time (UTC) and its hash.

    `harness run --preregistered FILE` records it in the run's manifest before the first
    trial; `harness compare` then judges this bar and says it was registered first."""
    registration = register(metric, base, new, delta, round_no, hypothesis)  # type: ignore[arg-type]
    write_registration(registration, out)
    console.print(f"registered at {registration.bar.registered_at}: {describe(registration.bar)}", markup=False,
                  highlight=False, soft_wrap=True)
    _finish(out)
