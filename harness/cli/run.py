"""`harness run`: models on a suite through Aider, with test feedback rounds, trials and
resume. The options become a RunConfig; harness.runner.run does the work."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Optional

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn
from rich.table import Table

from ..records import Sampling, TestWritingSettings
from ..runner import RunConfig
from .app import app, console, err, handled
from .options import EXECUTOR, RAY_ADDRESS, comma_list, default, executor_settings, from_options


class RunProgress:
    """Trials done, passes in round 1 and within two rounds, infrastructure errors, tokens,
    cost, ETA. Silent when the console is not a terminal."""

    def __init__(self, out: Console):
        self.out = out
        self.bar: Progress | None = None
        self.task = None
        self.r1 = self.r2 = self.errors = self.tokens = 0
        self.cost = 0.0

    def _count(self, result) -> None:
        if not result.done:
            self.errors += 1
        self.r1 += result.passes_after(1)
        self.r2 += result.passes_after(2)
        self.tokens += sum(r.counters.prompt_tokens + r.counters.completion_tokens for r in result.rounds)
        self.cost += sum(r.counters.cost for r in result.rounds)

    def _fields(self) -> dict:
        tokens = f"{self.tokens / 1000:.1f}k" if self.tokens >= 1000 else str(self.tokens)
        return {"stats": f"round 1 {self.r1} · ≤2 rounds {self.r2} · errors {self.errors} · {tokens} tokens · ${self.cost:.2f}"}

    def begin(self, plan, total: int, done: list) -> None:
        for result in done:
            self._count(result)
        if not self.out.is_terminal:
            return
        self.bar = Progress(
            TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(), TextColumn("{task.fields[stats]}"),
            TimeElapsedColumn(), TextColumn("ETA"), TimeRemainingColumn(), console=self.out, transient=False,
        )
        self.bar.start()
        self.task = self.bar.add_task(f"{plan.suite_name} × {len(plan.configs)} config(s)", total=total,
                                      completed=len(done), **self._fields())

    def advance(self, result) -> None:
        self._count(result)
        if self.bar is not None:
            self.bar.update(self.task, advance=1, **self._fields())

    def end(self) -> None:
        if self.bar is not None:
            self.bar.stop()
            self.bar = None


def _of_suite(mean: float, tasks: int) -> str:
    """`11.25/26 (43.3%)`: mean tasks solved out of the tasks run, and its percent."""
    return f"{mean:.2f}/{tasks} ({100 * mean / tasks:.1f}%)" if tasks and mean == mean else "n/a"


def print_summary(out: Console, summary) -> None:
    from ..report.formatting import fmt_percent, fmt_ratio

    table = Table(title=f"run {summary.run_id}", show_header=True, header_style="bold")
    writers = any(c.kill_rate is not None or c.assertion_accuracy is not None for c in summary.configs)
    shares = ("kill rate", "assertion accuracy") if writers else ()
    for col in ("config", "model", "round 1", "two rounds", *shares, "recovery", "infra errors"):
        table.add_column(col, justify="left" if col in ("config", "model") else "right")
    for c in summary.configs:
        errors = (str(c.infra_errors) + (f" (harness bugs: {c.harness_errors})" if c.harness_errors else "")
                  + (f" (+{c.missing} not run)" if c.missing else ""))
        cells = [fmt_percent(x) if x is not None else "n/a" for x in (c.kill_rate, c.assertion_accuracy)] if writers else []
        table.add_row(c.config, c.model, _of_suite(c.first_round_mean, c.tasks), _of_suite(c.two_round_mean, c.tasks),
                      *cells, fmt_ratio(c.recovered, c.first_round_failures), errors)
    out.print(table)
    trials = summary.configs[0].trials if summary.configs else 0
    solved = "tasks with a valid suite" if writers else "tasks solved"
    out.print(f"means over {trials} trial(s) of {solved}; recovery = first-round failures passing after round 2"
              + ("; kill rate and assertion accuracy: means over tasks within two rounds" if writers else ""),
              highlight=False)
    out.print(f"results: {summary.run_dir}", markup=False, highlight=False)


def _default(field: str) -> str:
    return f"(default: {default(RunConfig, field)})"


@app.command("run")
@handled
def run_cmd(
    model: list[str] = typer.Option([], "--model", "-m", help="litellm model string, local/<adapter>, or gold; repeat for several configs"),
    suite: Optional[str] = typer.Option(None, help=f"suite name or folder {_default('suite')}"),
    kind: Optional[str] = typer.Option(None, "--kind", help="what each trial asks for: repair (write the solution) or "
                                                           f"tests (write the test file) {_default('kind')}"),
    fill: bool = typer.Option(False, "--fill", help="--kind tests: the model writes FILL for each expected value and "
                                                    "the harness fills in the correct solution's values"),
    mutant_cap: Optional[int] = typer.Option(None, "--mutant-cap", help="--kind tests: at most this many mutants per "
                                                                        "task (default: 30), sampled"),
    api_base: Optional[str] = typer.Option(None, "--api-base", help="base URL of an OpenAI-compatible server (with openai/<name>)"),
    tasks: Optional[str] = typer.Option(None, help="comma-separated task slugs (default: the whole suite)"),
    trials: Optional[int] = typer.Option(None, help=f"trials per task {_default('trials')}"),
    rounds: Optional[int] = typer.Option(None, help=f"rounds per trial: 1 + feedback rounds {_default('rounds')}"),
    feedback: Optional[str] = typer.Option(None, help="what follows a round: real (the tests' output) or simulated (the failures the model predicts its own code has on the public tests; every round is still scored by the real tests) (default: real)"),
    workers: Optional[int] = typer.Option(None, help="trials run at once (default: number of cores)"),
    agent: Optional[str] = typer.Option(None, help=f"agent profile name (agents/*.toml) or path {_default('agent')}"),
    contract: Optional[str] = typer.Option(None, help="prompt contract name (prompt_contracts/*.toml) or path (default: the profile's, else original)"),
    aider_checkout: Optional[Path] = typer.Option(None, "--aider-checkout", help="your Aider checkout, for contracts that take Aider's benchmark prompts from it (default: $HARNESS_AIDER_CHECKOUT)"),
    temperature: Optional[float] = typer.Option(None, help="sampling temperature (Aider's default: 0)"),
    top_p: Optional[float] = typer.Option(None, "--top-p"),
    max_tokens: Optional[int] = typer.Option(None, "--max-tokens"),
    seed: Optional[int] = typer.Option(None, help="sampling seed, where the server honours it"),
    sandbox: Optional[str] = typer.Option(None, help=f"docker, local, or auto {_default('sandbox')}"),
    runs_dir: Optional[Path] = typer.Option(None, "--runs-dir", help=f"where runs go {_default('runs_dir')}"),
    run_id: Optional[str] = typer.Option(None, "--run-id", help="name the run (default: timestamp and random suffix)"),
    resume: Optional[str] = typer.Option(None, help="continue RUN_ID: rerun only trials without a finished result"),
    retry_harness_errors: bool = typer.Option(False, "--retry-harness-errors", help="with --resume: rerun trials a bug of the harness ended too (once it is fixed)"),
    dry_run: bool = typer.Option(False, "--dry-run", help="print what would run, run nothing"),
    executor: Optional[str] = EXECUTOR,
    ray_address: Optional[str] = RAY_ADDRESS,
    requests_per_minute: Optional[float] = typer.Option(None, "--requests-per-minute", help="each provider's rate "
                                                        "limit, one pace for every worker and node (gold has none)"),
    as_json: bool = typer.Option(False, "--json", help="print the run summary as JSON"),
):
    """Evaluate models on a suite: Aider answers each task, the tests run in the sandbox, a
    failed round gets the test output back; each task once per trial."""
    from ..runner import run

    # Only the options given go into the config, its own defaults stand for the rest: a
    # resumed run takes them from its manifest, and refuses those that change what it computes.
    given = dict(
        suite=suite, api_base=api_base, trials=trials, rounds=rounds, feedback=feedback, workers=workers, agent=agent,
        contract=contract, aider_checkout=aider_checkout, sandbox=sandbox, runs_dir=runs_dir, run_id=run_id,
        resume=resume, retry_harness_errors=retry_harness_errors or None, tasks=comma_list(tasks),
        models=model or None, kind=kind, executor=executor_settings(executor, ray_address),
        requests_per_minute=requests_per_minute,
    )
    scoring = {k: v for k, v in dict(fill=fill or None, mutant_cap=mutant_cap).items() if v is not None}
    if scoring:
        from ..errors import BadInput

        if kind != "tests":
            raise BadInput(f"--{'fill' if 'fill' in scoring else 'mutant-cap'} is for --kind tests")
        given["tests"] = from_options(TestWritingSettings, scoring)
    sampling = {k: v for k, v in dict(temperature=temperature, top_p=top_p, max_tokens=max_tokens, seed=seed).items()
                if v is not None}
    if sampling:
        given["sampling"] = from_options(Sampling, sampling)
    config = from_options(RunConfig, {**{k: v for k, v in given.items() if v is not None}, "dry_run": dry_run,
                                      "command_line": ["harness", *sys.argv[1:]]}, {"models": "model"})

    notice = lambda m: err.print(m, markup=False, highlight=False)  # noqa: E731
    progress = RunProgress(err) if not as_json else None
    summary = run(config, log=notice, progress=progress)
    if as_json:
        sys.stdout.write(summary.model_dump_json(indent=2) + "\n")
    elif summary.dry_run:
        console.print(f"run {summary.run_id}: {len(summary.plan)} trial(s) to run, {summary.skipped} already done")
        for line in summary.plan:
            console.print(f"  {line}", markup=False, highlight=False)
    else:
        print_summary(console, summary)
    bugs = sum(c.harness_errors for c in summary.configs)
    errors = sum(c.infra_errors + c.missing for c in summary.configs) - bugs
    if errors and not summary.dry_run:
        notice(f"{errors} trial(s) did not finish (infrastructure errors); rerun them with "
               f"`harness run --resume {summary.run_id}`")
    if bugs and not summary.dry_run:
        notice(f"{bugs} trial(s) ended in a bug of the harness (tracebacks in their harness-error.log); "
               f"once it is fixed, rerun them with `harness run --resume {summary.run_id} --retry-harness-errors`")
    if (errors or bugs) and not summary.dry_run:
        raise typer.Exit(1)
