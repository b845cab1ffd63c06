"""`harness predict`: output-prediction items (`build` from a suite, `import` of a published
benchmark or a problems file) and a model scored on them (`eval`)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Optional

import typer
from rich.table import Table

from ..predict.build import build
from ..predict.build import Built
from ..predict.config import PredictBuildConfig, PredictEvalConfig, PredictImportConfig, ProblemsImportConfig
from ..predict.evaluate import evaluate
from ..predict.explain import EXPLAIN_FILE, ExplainConfig, explain
from ..predict.imported import import_cruxeval
from ..predict.problems import import_problems
from ..records import TrialOutcome
from .app import app, console, err, handled
from .options import comma_list, default, from_options

predict_app = typer.Typer(
    no_args_is_help=True,
    help="Output prediction: items of (code, call) -> observed value (build, import), a model scored on them (eval).",
)
app.add_typer(predict_app, name="predict")
import_app = typer.Typer(no_args_is_help=True, help="Prediction sets from a published benchmark or a file of problems.")
predict_app.add_typer(import_app, name="import")


@import_app.command("cruxeval")
@handled
def import_cruxeval_cmd(
    path: Path = typer.Argument(..., help="a checkout of facebookresearch/cruxeval, or its data/cruxeval.jsonl"),
    out: str = typer.Option("cruxeval-o", help="the set's name (a folder under the root)"),
    root: Optional[Path] = typer.Option(None, help="the folder sets go in (default: ./curricula)"),
    replace: bool = typer.Option(False, help="overwrite a set of the same name"),
):
    """CruxEval-O: each of the benchmark's functions with its input is an item whose answer
    completes `assert f(input) == ??`, scored by CruxEval's rule (the answer evaluated in the
    sandbox, right when it equals the recorded output). The data stays in the checkout; the
    set holds the items, all in the eval split."""
    done = import_cruxeval(from_options(PredictImportConfig, dict(path=path, out=out, root=root, replace=replace)))
    console.print(f"{done.path}: {done.manifest.items['eval']} CruxEval-O items from {done.source} "
                  f"(sha256 {done.manifest.suite_hash[:12]})", markup=False, highlight=False)


@predict_app.command("build")
@handled
def build_cmd(
    suite: str = typer.Option(..., help="the suite whose tasks' checks give the calls"),
    out: str = typer.Option(..., help="the set's name (a folder under the root)"),
    from_runs: Optional[list[str]] = typer.Option(None, "--from",
        help="a run (id or folder) whose recorded answers are code too; repeatable"),
    runs_dir: Path = typer.Option(Path("runs"), help="where runs named by id are"),
    tasks: Optional[str] = typer.Option(None, help="comma-separated task slugs (default: all)"),
    eval_tasks: Optional[str] = typer.Option(None, "--eval-tasks", help="comma-separated tasks whose items are eval only"),
    eval_share: Optional[float] = typer.Option(None, "--eval-share", help="share of tasks drawn for eval (default 0.2)"),
    mutants: int = typer.Option(default(PredictBuildConfig, "mutants"), help="compiling mutants of the reference per task"),
    seed: int = typer.Option(default(PredictBuildConfig, "seed"), help="seed of the split and the mutant draw"),
    root: Optional[Path] = typer.Option(None, help="the folder sets go in (default: ./curricula)"),
    replace: bool = typer.Option(False, help="overwrite a set of the same name"),
    sandbox: str = typer.Option(default(PredictBuildConfig, "sandbox"), help="docker, local, or auto"),
    workers: Optional[int] = typer.Option(None, help="parallel sandbox sessions (default: one per core)"),
    timeout: float = typer.Option(default(PredictBuildConfig, "run_timeout_s"), help="seconds for one run of a probe program"),
):
    """Observe items: every version of each task's code (reference, faulty controls, mutants,
    answers recorded in runs) runs the task's verifier calls in the sandbox; each call's value
    is an item, deduplicated and split by task into train and eval."""
    config = from_options(PredictBuildConfig, dict(
        suite=suite, out=out, runs=from_runs or [], runs_dir=runs_dir, tasks=comma_list(tasks),
        eval_tasks=comma_list(eval_tasks), eval_share=eval_share, mutants=mutants, seed=seed, root=root,
        replace=replace, sandbox=sandbox, workers=workers, run_timeout_s=timeout,
    ), flags={"runs": "from", "run_timeout_s": "timeout"})
    done = [0]

    def progress(_: str) -> None:
        done[0] += 1
        if err.is_terminal:
            err.print(f"\rversions of code observed: {done[0]}", end="")

    built = build(config, progress=progress, notice=lambda m: err.print(m, markup=False, highlight=False))
    if err.is_terminal and done[0]:
        err.print()  # end the counter's line
    print_built(built)


def print_built(built: Built) -> None:
    """A written set: its items per split and source, and what was left out and why."""
    m = built.manifest
    table = Table(show_header=True, header_style="bold", title=f"{built.path}: {sum(m.items.values())} items")
    for col in ("split", "items", "tasks"):
        table.add_column(col)
    table.add_row("train", str(m.items["train"]), ", ".join(m.source_tasks))
    table.add_row("eval", str(m.items["eval"]), ", ".join(m.eval_tasks))
    console.print(table)
    console.print("by source: " + ", ".join(f"{k} {v}" for k, v in m.by_source.items()))
    if m.dropped:
        console.print("left out: " + "; ".join(f"{k}: {v}" for k, v in m.dropped.items()))
    if m.skipped_tasks:
        console.print("tasks without items: " + "; ".join(f"{k} ({v})" for k, v in m.skipped_tasks.items()))


@import_app.command("problems")
@handled
def import_problems_cmd(
    path: Path = typer.Argument(..., help="a JSONL of problems (CodeContests' shape; docs/self-execution.md)"),
    out: str = typer.Option(..., help="the set's name (a folder under the root)"),
    solutions: int = typer.Option(default(ProblemsImportConfig, "solutions"), help="Python 3 solutions run per problem"),
    tests: int = typer.Option(default(ProblemsImportConfig, "tests"), help="tests run per problem, public first"),
    eval_tasks: Optional[str] = typer.Option(None, "--eval-tasks", help="comma-separated problems whose items are eval only"),
    eval_share: Optional[float] = typer.Option(None, "--eval-share", help="share of problems drawn for eval (default 0.2)"),
    seed: int = typer.Option(default(ProblemsImportConfig, "seed"), help="seed of the split"),
    root: Optional[Path] = typer.Option(None, help="the folder sets go in (default: ./curricula)"),
    replace: bool = typer.Option(False, help="overwrite a set of the same name"),
    sandbox: str = typer.Option(default(ProblemsImportConfig, "sandbox"), help="docker, local, or auto"),
    workers: Optional[int] = typer.Option(None, help="parallel sandbox sessions (default: one per core)"),
    timeout: float = typer.Option(default(ProblemsImportConfig, "run_timeout_s"), help="seconds for one solution on one test"),
):
    """(program, stdin) -> stdout items: each problem's Python 3 solutions run on its tests in
    the sandbox; a run that prints the file's expected output (token by token, numbers within
    1e-5) is an item whose truth is the printed output, split by problem into train and eval."""
    config = from_options(ProblemsImportConfig, dict(
        path=path, out=out, solutions=solutions, tests=tests, eval_tasks=comma_list(eval_tasks), eval_share=eval_share,
        seed=seed, root=root, replace=replace, sandbox=sandbox, workers=workers, run_timeout_s=timeout,
    ), flags={"run_timeout_s": "timeout"})
    print_built(import_problems(config, notice=lambda m: err.print(m, markup=False, highlight=False)))


def print_breakdown(run_dir: Path) -> None:
    """The per-source and per-task accuracy of a prediction run, as `harness report` shows it."""
    # pandas, behind the outcome frames and the report: loaded for this command only.
    from ..outcomes import load_run
    from ..predict.breakdown import ITEMS_NOTE, outcomes_breakdown
    from ..report.document import Document
    from ..report.sections import prediction_rows, prediction_table
    from ..report.to_terminal import render_terminal

    outcomes = load_run(run_dir)
    table = prediction_table(prediction_rows(outcomes_breakdown(outcomes, outcomes.frame)))
    render_terminal(Document("report", f"prediction run {run_dir.name}", notes=[ITEMS_NOTE], tables=[table]), console)


@predict_app.command("eval")
@handled
def eval_cmd(
    model: Optional[str] = typer.Option(None, help="a litellm model string, openai/<name> with --api-base, or local/<adapter>"),
    items: Optional[str] = typer.Option(None, help="the set's name (a folder under the root, from `harness predict build`)"),
    split: Optional[str] = typer.Option(None, help=f"eval, train or all (default: {default(PredictEvalConfig, 'split')})"),
    samples: Optional[int] = typer.Option(None, "--samples", "--trials",
        help=f"samples per item, each a trial of the run (the n of pass@k; --trials is the same option) "
             f"(default: {default(PredictEvalConfig, 'trials')})"),
    temperature: Optional[float] = typer.Option(None, help="sampling temperature (default: the server's)"),
    top_p: Optional[float] = typer.Option(None, "--top-p", help="nucleus sampling's share (default: the server's)"),
    sandbox: str = typer.Option(default(PredictEvalConfig, "sandbox"),
        help="docker, local or auto: where answers are evaluated, for items whose rule executes them (CruxEval's)"),
    workers: int = typer.Option(default(PredictEvalConfig, "workers"), help="model calls in flight"),
    api_base: Optional[str] = typer.Option(None, "--api-base", help="the server of an openai/<name> model"),
    root: Optional[Path] = typer.Option(None, help="the folder sets are in (default: ./curricula)"),
    runs_dir: Path = typer.Option(Path("runs"), help="where the run folder is written"),
    run_id: Optional[str] = typer.Option(None, "--run-id", help="the run's id (default: the time and a random tag)"),
    retries: int = typer.Option(default(PredictEvalConfig, "retries"), help="tries of one model call before the provider counts as failed"),
    resume: Optional[str] = typer.Option(None,
        help="continue RUN_ID: rerun only its trials without an outcome (model, set, split, samples and sampling are the run's)"),
):
    """The model predicts each item's value, `--samples` times at the given sampling; +1 when
    its answer matches the observed value (exact after normalisation, floats within 1e-5; a
    CruxEval item's by its own rule), -1 when wrong or not in the format. The
    run folder reads with `harness report` and `compare`; a provider that keeps failing is an
    infrastructure error, not a wrong answer."""
    given = dict(model=model, items=items, split=split, trials=samples, temperature=temperature, top_p=top_p,
                 api_base=api_base, run_id=run_id, resume=resume)
    config = from_options(PredictEvalConfig, {**{k: v for k, v in given.items() if v is not None}, "workers": workers,
                                              "root": root, "runs_dir": runs_dir, "retries": retries,
                                              "sandbox": sandbox}, flags={"trials": "samples"})
    done = evaluate(config, command_line=sys.argv)
    console.print(f"{done.folder.root}: {done.count(TrialOutcome.passed)} correct, {done.count(TrialOutcome.failed)} "
                  f"wrong or malformed, {done.count(TrialOutcome.infra_error)} provider failures")
    failed = done.count(TrialOutcome.infra_error)
    if any(r.done for r in done.results):
        print_breakdown(done.folder.root)
    if failed:
        err.print(f"{failed} trial(s) have no outcome: the provider kept failing (infrastructure errors, counted "
                  f"nowhere); when it answers, rerun them with `harness predict eval --resume {done.folder.run_id}`",
                  markup=False, highlight=False)
        raise typer.Exit(1)


@predict_app.command("explain")
@handled
def explain_cmd(
    items: str = typer.Option(..., help="the set's name (a folder under the root, from `harness predict build`)"),
    model: str = typer.Option(..., help="a litellm model string, openai/<name> with --api-base, or local/<adapter>"),
    split: str = typer.Option(default(ExplainConfig, "split"), help="train, eval or all"),
    out: Optional[Path] = typer.Option(None, help=f"the JSONL to write (default: the set's {EXPLAIN_FILE})"),
    api_base: Optional[str] = typer.Option(None, "--api-base", help="the server of an openai/<name> model"),
    root: Optional[Path] = typer.Option(None, help="the folder sets are in (default: ./curricula)"),
    workers: int = typer.Option(default(ExplainConfig, "workers"), help="model calls in flight"),
    sandbox: str = typer.Option(default(ExplainConfig, "sandbox"), help="docker, local, or auto"),
    retries: int = typer.Option(default(ExplainConfig, "retries"), help="tries of one model call before the provider counts as failed"),
):
    """Trace explanations as SFT rows (the self-execution paper's NLEX): each traceable item's
    call runs again under a line tracer in the sandbox (10,000 events, 1 MB of text at most),
    the model explains the trace and answers; rows are kept only where the answer is right."""
    config = from_options(ExplainConfig, dict(items=items, model=model, split=split, out=out, api_base=api_base,
                                              root=root, workers=workers, sandbox=sandbox, retries=retries))
    done = explain(config)
    counts = ", ".join(f"{what} {n}" for what, n in sorted(done.counts.items()))
    console.print(f"{done.out}: {done.counts.get('kept', 0)} rows ({counts}; traces cut at the limits among the "
                  f"kept: {done.cut})", markup=False, highlight=False)
    if any(what.endswith(" failure") for what in done.counts):
        err.print("some items got no explanation: the provider or the sandbox kept failing (infrastructure, counted "
                  "nowhere); run the command again", markup=False, highlight=False)
        raise typer.Exit(1)
