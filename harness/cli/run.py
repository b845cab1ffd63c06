"""`harness run`: models on a suite through Aider, with test feedback rounds, trials and
resume. The options become a RunConfig; harness.run.run does the work."""

from __future__ import annotations

import sys
import threading
import time
from pathlib import Path
from typing import Optional

import typer
from rich.console import Console
from rich.progress import (BarColumn, MofNCompleteColumn, Progress, SpinnerColumn, TaskID, TextColumn, TimeElapsedColumn,
                           TimeRemainingColumn)
from rich.table import Table

from ..errors import BadInput
from ..kinds import DEFAULT_KIND, kinds_with
from ..records import Sampling, TestWritingSettings
from ..run import run
from ..run.config import RunConfig
from .app import app, console, err, handled, print_wide
from .options import EXECUTOR, RAY_ADDRESS, comma_list, default, executor_settings, from_options


PLAIN_EVERY_S = 5.0  # outside a terminal: a progress line this often


class RunProgress:
    """What the run is doing, from its first second: the step being prepared, then trials
    done, passes in round 1 and within two rounds, infrastructure errors, tokens, cost,
    ETA. On a terminal a spinner from the first moment, then a rich progress bar; elsewhere
    (a log file, CI) a plain line once the input is checked, when each step starts, and
    every PLAIN_EVERY_S seconds while trials run."""

    def __init__(self, out: Console, every_s: float = PLAIN_EVERY_S):
        self.out = out
        self.every_s = every_s
        self.bar: Progress | None = None
        self.task = TaskID(0)  # the bar's one task; read only while self.bar is set
        self.r1 = self.r2 = self.errors = self.tokens = 0
        self.cost = 0.0
        self.total = self.done = self.ran = 0
        self.label: str | None = None
        self.preparing = "starting"
        self.started = time.monotonic()
        self._ticker: threading.Thread | None = None
        self._stop = threading.Event()
        self._lock = threading.Lock()

    def _count(self, result) -> None:
        if not result.done:
            self.errors += 1
        self.r1 += result.passes_after(1)
        self.r2 += result.passes_after(2)
        self.tokens += sum(r.counters.prompt_tokens + r.counters.completion_tokens for r in result.rounds)
        self.cost += sum(r.counters.cost for r in result.rounds)

    def _stats(self) -> str:
        tokens = f"{self.tokens / 1000:.1f}k" if self.tokens >= 1000 else str(self.tokens)
        return f"round 1 {self.r1} · ≤2 rounds {self.r2} · errors {self.errors} · {tokens} tokens · ${self.cost:.2f}"

    def _plain(self, text: str) -> None:
        elapsed = int(time.monotonic() - self.started)
        self.out.print(f"[{elapsed // 60:02d}:{elapsed % 60:02d}] {text}", markup=False, highlight=False,
                       soft_wrap=True)

    def _line(self) -> str:
        if self.label is None:
            return f"preparing: {self.preparing}"
        left = self.total - self.done
        rate = (time.monotonic() - self.begun) / self.ran if self.ran else None
        eta = f", ETA {int(rate * left) // 60}:{int(rate * left) % 60:02d}" if rate is not None and left else ""
        return f"{self.label}: {self.done}/{self.total} trials · {self._stats()}{eta}"

    def step(self, text: str, checking: bool = False) -> None:
        """Something before the trials start (checking the models, starting the sandbox).
        Outside a terminal a step that is `checking` input prints nothing: bad input found
        there stays the only line the command prints."""
        self.preparing = text
        if not self.out.is_terminal:
            if not checking:
                with self._lock:
                    self._plain(self._line())
            return
        if self.bar is None:
            self.bar = Progress(SpinnerColumn(), TextColumn("{task.description}"), TimeElapsedColumn(),
                                console=self.out, transient=True)
            self.bar.start()
            self.task = self.bar.add_task(text, total=None)
        else:
            self.bar.update(self.task, description=text)

    def begin(self, plan, total: int, done: list) -> None:
        for result in done:
            self._count(result)
        self.total, self.done, self.ran = total, len(done), 0
        self.begun = time.monotonic()
        self.label = f"{plan.suite_name} × {len(plan.configs)} config(s)"
        if self.bar is not None:
            self.bar.stop()
            self.bar = None
        if not self.out.is_terminal:
            with self._lock:
                self._plain(self._line())
            self._tick_lines()
            return
        self.bar = Progress(
            TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(), TextColumn("{task.fields[stats]}"),
            TimeElapsedColumn(), TextColumn("ETA"), TimeRemainingColumn(), console=self.out, transient=False,
        )
        self.bar.start()
        self.task = self.bar.add_task(self.label, total=total, completed=len(done), stats=self._stats())

    def _tick_lines(self) -> None:
        if self._ticker is None:
            self._ticker = threading.Thread(target=self._tick, name="progress-lines", daemon=True)
            self._ticker.start()

    def _tick(self) -> None:
        while not self._stop.wait(self.every_s):
            with self._lock:
                self._plain(self._line())

    def advance(self, result) -> None:
        with self._lock:
            self._count(result)
            self.done += 1
            self.ran += 1
        if self.bar is not None:
            self.bar.update(self.task, advance=1, stats=self._stats())

    def end(self) -> None:
        self._stop.set()
        if self._ticker is not None:
            self._ticker.join(5)
            self._ticker = None
            if self.label is not None:
                with self._lock:
                    self._plain(self._line())
        if self.bar is not None:
            self.bar.stop()
            self.bar = None


def _of_suite(mean: float | None, tasks: int) -> str:
    """`11.25/26 (43.3%)`: mean tasks solved out of the tasks run, and its percent."""
    if mean is None:
        return "no tested round"
    return f"{mean:.2f}/{tasks} ({100 * mean / tasks:.1f}%)" if tasks and mean == mean else "n/a"


def print_summary(out: Console, summary) -> None:
    # the report package stands on pandas (half a second to import): loaded once a run has ended
    from ..report.formatting import fmt_percent, fmt_ratio

    table = Table(title=f"run {summary.run_id}", show_header=True, header_style="bold")
    writers = any(c.kill_rate is not None or c.assertion_accuracy is not None for c in summary.configs)
    shares = ("kill rate", "assertion accuracy") if writers else ()
    for col in ("config", "model", "round 1", "two rounds", *shares, "recovery", "infra errors"):
        table.add_column(col, justify="left" if col in ("config", "model") else "right")
    for c in summary.configs:
        errors = (str(c.infra_errors) + (f" (harness bugs: {c.harness_errors})" if c.harness_errors else "")
                  + (f" (suite errors: {c.suite_errors})" if c.suite_errors else "")
                  + (f" (+{c.missing} not run)" if c.missing else ""))
        cells = [fmt_percent(x) if x is not None else "n/a" for x in (c.kill_rate, c.assertion_accuracy)] if writers else []
        table.add_row(c.config, c.model, _of_suite(c.first_round_mean, c.tasks), _of_suite(c.two_round_mean, c.tasks),
                      *cells, fmt_ratio(c.recovered, c.first_round_failures), errors)
    print_wide(out, table)
    trials = summary.configs[0].trials if summary.configs else 0
    solved = "tasks with a valid suite" if writers else "tasks solved"
    out.print(f"means over {trials} trial(s) of {solved}; recovery = first-round failures passing after round 2"
              + ("; kill rate and assertion accuracy: means over tasks within two rounds" if writers else ""),
              highlight=False, soft_wrap=True)
    untested = [c.config for c in summary.configs if c.first_round_mean is None]
    if untested:
        out.print(f"no round was tested for {', '.join(untested)}: every trial ended before its tests ran "
                  "(see infra errors); there is no score to show", highlight=False, soft_wrap=True)
    out.print(f"results: {summary.run_dir}", markup=False, highlight=False, soft_wrap=True)


def _default(field: str) -> str:
    return f"(default: {default(RunConfig, field)})"


@app.command("run")
@handled
def run_cmd(
    model: list[str] = typer.Option([], "--model", "-m", help="a litellm model string (openai/NAME@URL: a server of "
                                    "your own), local/<adapter>, gold, mutant:SHARE, or a --models-file entry; "
                                    "repeat for several configs; MODEL::CONTRACT gives one a prompt contract of its own"),
    suite: Optional[str] = typer.Option(None, help=f"suite name or folder {_default('suite')}"),
    kind: Optional[str] = typer.Option(None, "--kind", help="what each trial asks for: repair (write the solution) or "
                                                           f"tests (write the test file) {_default('kind')}"),
    fill: bool = typer.Option(False, "--fill", help="--kind tests: the model writes FILL for each expected value and "
                                                    "the harness fills in the correct solution's values"),
    mutant_cap: Optional[int] = typer.Option(None, "--mutant-cap", help="--kind tests: at most this many mutants per "
                                                                        "task (default: 30), sampled"),
    models_file: Optional[Path] = typer.Option(None, "--models-file", help="litellm's model_list (YAML or TOML): "
                                               "each model_name with its model, api_base and api_key: os.environ/VAR; "
                                               "--model NAME takes that entry (default: every entry)"),
    api_base: Optional[str] = typer.Option(None, "--api-base", help="the endpoint of the run's one model (several "
                                           "models: each its own, --model openai/NAME@http://HOST:PORT/v1)"),
    tasks: Optional[str] = typer.Option(None, help="comma-separated task slugs (default: the whole suite)"),
    trials: Optional[int] = typer.Option(None, help=f"trials per task {_default('trials')}"),
    rounds: Optional[int] = typer.Option(None, help=f"rounds per trial: 1 + feedback rounds {_default('rounds')}"),
    feedback: Optional[str] = typer.Option(None,
        help="what follows a round: real (the tests' output) or simulated (the failures the model predicts its own code has on the "
             "public tests); self-rlef (--agent direct: the model predicts its code's output on each public test, then decides "
             "to submit or fix; self-rlef-exec: shown the public tests' real outputs instead); every round is still scored "
             "by the real tests (default: real)"),
    workers: Optional[int] = typer.Option(None, help="trials run at once (default: number of cores)"),
    agent: Optional[str] = typer.Option(None, help=f"agent profile name (agents/*.toml) or path {_default('agent')}"),
    contract: Optional[str] = typer.Option(None,
        help="prompt contract name (prompt_contracts/*.toml) or path (default: the profile's, else original)"),
    aider_checkout: Optional[Path] = typer.Option(None, "--aider-checkout",
        help="your Aider checkout, for contracts that take Aider's benchmark prompts from it (default: $HARNESS_AIDER_CHECKOUT)"),
    temperature: Optional[float] = typer.Option(None, help="sampling temperature (Aider's default: 0)"),
    top_p: Optional[float] = typer.Option(None, "--top-p"),
    max_tokens: Optional[int] = typer.Option(None, "--max-tokens"),
    seed: Optional[int] = typer.Option(None, help="sampling seed, where the server honours it"),
    sandbox: Optional[str] = typer.Option(None, help=f"docker, local, or auto {_default('sandbox')}"),
    runs_dir: Optional[Path] = typer.Option(None, "--runs-dir", help=f"where runs go {_default('runs_dir')}"),
    run_id: Optional[str] = typer.Option(None, "--run-id", help="name the run (default: timestamp and random suffix)"),
    resume: Optional[str] = typer.Option(None, help="continue RUN_ID: rerun only trials without a finished result"),
    retry_harness_errors: bool = typer.Option(False, "--retry-harness-errors",
        help="with --resume: rerun trials a bug of the harness ended too (once it is fixed)"),
    dry_run: bool = typer.Option(False, "--dry-run", help="print what would run, run nothing"),
    executor: Optional[str] = EXECUTOR,
    ray_address: Optional[str] = RAY_ADDRESS,
    requests_per_minute: Optional[float] = typer.Option(None, "--requests-per-minute", help="each provider's rate "
                                                        "limit, one pace for every worker and node (gold has none)"),
    preregistered: Optional[Path] = typer.Option(None, "--preregistered",
        help="a bar's registration file (`harness preregister`): checked, then recorded in the run's manifest before "
             "the first trial, for `harness compare` to judge"),
    as_json: bool = typer.Option(False, "--json", help="print the run summary as JSON"),
):
    """Evaluate models on a suite: the agent (Aider by default) answers each task, the tests
    run in the sandbox, a failed round gets the test output back; each task once per trial."""
    # Only the options given go into the config, its own defaults stand for the rest: a
    # resumed run takes them from its manifest, and refuses those that change what it computes.
    given: dict[str, object] = dict(
        suite=suite, models_file=models_file, api_base=api_base, trials=trials, rounds=rounds, feedback=feedback, workers=workers,
        agent=agent, contract=contract, aider_checkout=aider_checkout, sandbox=sandbox, runs_dir=runs_dir, run_id=run_id,
        resume=resume, retry_harness_errors=retry_harness_errors or None, tasks=comma_list(tasks),
        models=model or None, kind=kind, executor=executor_settings(executor, ray_address),
        requests_per_minute=requests_per_minute, preregistered=preregistered,
    )
    scoring = {k: v for k, v in dict(fill=fill or None, mutant_cap=mutant_cap).items() if v is not None}
    if scoring:
        takes = kinds_with("settings_type")
        if (kind or DEFAULT_KIND) not in takes:
            raise BadInput(f"--{'fill' if 'fill' in scoring else 'mutant-cap'} is for --kind {' or '.join(takes)}")
        given["tests"] = from_options(TestWritingSettings, scoring)
    sampling = {k: v for k, v in dict(temperature=temperature, top_p=top_p, max_tokens=max_tokens, seed=seed).items()
                if v is not None}
    if sampling:
        given["sampling"] = from_options(Sampling, sampling)
    config = from_options(RunConfig, {**{k: v for k, v in given.items() if v is not None}, "dry_run": dry_run,
                                      "command_line": ["harness", *sys.argv[1:]]}, {"models": "model"})

    notice = lambda m: err.print(m, markup=False, highlight=False, soft_wrap=True)  # noqa: E731
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
    unreadable = sum(c.suite_errors for c in summary.configs)
    errors = sum(c.infra_errors + c.missing for c in summary.configs) - bugs - unreadable
    if errors and not summary.dry_run:
        notice(f"{errors} trial(s) did not finish (infrastructure errors); rerun them with "
               f"`harness run --resume {summary.run_id}`")
    if bugs and not summary.dry_run:
        notice(f"{bugs} trial(s) ended in a bug of the harness (tracebacks in their harness-error.log); "
               f"once it is fixed, rerun them with `harness run --resume {summary.run_id} --retry-harness-errors`")
    if unreadable and not summary.dry_run:
        notice(f"{unreadable} trial(s) of tasks whose files could not be read are recorded as suite errors "
               "(the lines above name the files); fix those tasks and start a new run")
    if (errors or bugs or unreadable) and not summary.dry_run:
        raise typer.Exit(1)
