"""`harness tests`: test suites written for a task, scored by execution."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Optional

import typer

from ..records import TestWritingSettings
from ..sandbox import make_sandbox
from ..testwriting.export import export_suites
from ..testwriting.teacher import import_teacher, teacher_style_contract
from ..testwriting.score import SuiteToScore, read_test_file, score_suites, task_for_scoring
from ..training_files import curriculum_roots
from .app import app, console, err, handled

tests_app = typer.Typer(no_args_is_help=True, help="Written test suites: score them against a task's solution "
                                                   "and its broken copies.")
app.add_typer(tests_app, name="tests")
DEFAULT = TestWritingSettings()
# A teacher's suites, read by import-teacher and style-contract alike.
TEACHER_FILE = typer.Argument(..., help='a JSONL file of {"task": SLUG, "suite": TEST_FILE_TEXT} lines')
TEACHER_SUITE = typer.Option(..., "--suite", help="the suite the tasks are in")


@tests_app.command("score")
@handled
def tests_score(
    task: str = typer.Argument(..., help="a task slug of --suite, or the path of a task folder"),
    test_file: Path = typer.Argument(..., help="the written test file (Catch2 for a C++ task, pytest for a Python one)"),
    suite: str = typer.Option("fixed26", "--suite", help="the suite the task is in"),
    sandbox: str = typer.Option("auto", help="docker, local, or auto"),
    mutant_cap: Optional[int] = typer.Option(
        DEFAULT.mutant_cap, min=1, help="at most this many mutants, sampled (a run's default, so the two score "
                                        "against the same targets)"),
    all_mutants: bool = typer.Option(False, "--all-mutants", help="every mutant, not a sample"),
    seed: int = typer.Option(DEFAULT.mutant_seed, help="seed of the mutant sample"),
    fill: bool = typer.Option(False, "--fill", help="fill each FILL placeholder with the correct solution's value first"),
    as_json: bool = typer.Option(False, "--json", help="print the scored suite's record as JSON"),
):
    """Validity (compiles, every assertion holds on the reference), assertion accuracy, and
    the kill rate over the task's faulty controls and the mutants its own tests kill."""
    t = task_for_scoring(task, suite)
    source = read_test_file(test_file)
    box = make_sandbox(sandbox, notice=lambda m: err.print(m, markup=False, highlight=False))
    scored = score_suites(box, [SuiteToScore(t, source, fill=fill)], mutant_cap=None if all_mutants else mutant_cap,
                          mutant_seed=seed)[0]
    assert scored is not None  # without on_failure a suite whose scoring failed raised instead
    if as_json:
        sys.stdout.write(scored.model_dump_json(indent=2) + "\n")
        return
    acc = "-" if scored.assertion_accuracy is None else f"{scored.assertion_accuracy:.0%}"
    count = f" ({scored.assertions.passed}/{scored.assertions.total})" if scored.assertions else ""
    console.print(f"{t.slug}: {'[green]valid[/]' if scored.valid else '[red]invalid[/]'}", highlight=False)
    if scored.fill is not None:
        console.print(f"  filled {scored.fill.filled} of {scored.fill.placeholders} placeholders", highlight=False)
        for u in scored.fill.unfilled:
            console.print(f"    line {u.line}: {u.why}", markup=False, highlight=False)
    if scored.why_invalid:
        console.print(f"  {scored.why_invalid}", markup=False, highlight=False)
    console.print(f"  assertion accuracy {acc}{count}", highlight=False)
    if scored.shape is not None:
        sh = scored.shape
        console.print(f"  {sh.tests} tests, {sh.assertions} assertions (equality {sh.equality}, exception "
                      f"{sh.exception}, property {sh.property}, other {sh.other}; constant {sh.constant}), "
                      f"{sh.lines} lines", highlight=False)
    if scored.kill_rate is not None:
        console.print(f"  kill rate {scored.kill_rate:.0%} ({scored.killed}/{scored.scored})", highlight=False)
        for r in scored.targets:
            if r.outcome.value != "killed":
                console.print(f"    {r.outcome.value}: {r.kind.value} {r.name}", markup=False, highlight=False)
    console.print(f"  {scored.seconds:.1f} s (build {scored.build_seconds:.1f} s, runs {scored.run_seconds:.1f} s)",
                  highlight=False)


@tests_app.command("export")
@handled
def tests_export(
    runs: list[Path] = typer.Argument(..., help="test-writing run folders (harness run --kind tests)"),
    out: str = typer.Option(..., "--out", help="a name (written under ./curricula, where harness train finds it) "
                                               "or a folder path"),
    min_kill: float = typer.Option(0.8, "--min-kill", help="SFT: valid suites with at least this kill rate"),
    margin: float = typer.Option(0.2, help="preference pairs of valid suites: the chosen kills at least this much more"),
    pairs_per_task: int = typer.Option(8, "--pairs-per-task", min=1, help="at most this many preference pairs per task"),
    replace: bool = typer.Option(False, help="overwrite the folder if it exists"),
    corrected: bool = typer.Option(False, "--corrected", help="also sft-corrected.jsonl: invalid suites with their "
                                   "wrong expected values replaced by the correct solution's (runs in the sandbox)"),
    traces: bool = typer.Option(False, "--traces", help="also sft-traces.jsonl: the SFT suites with the correct "
                                "solution's run of each assertion's call above it (Python; runs in the sandbox)"),
    sandbox: str = typer.Option("auto", help="--corrected, --traces: docker, local, or auto"),
    workers: int = typer.Option(1, min=1, help="--corrected, --traces: suites worked on at once"),
):
    """Training data from written suites: SFT pairs of valid, high-kill suites, preference
    pairs of the same task (valid over invalid, high kill over low), GRPO prompts; with
    --corrected, SFT pairs of the model's own suites with their wrong values corrected; with
    --traces, the SFT suites with execution-trace scratchpads."""
    dest = Path(out) if "/" in out else curriculum_roots()[0] / out
    box = (make_sandbox(sandbox, notice=lambda m: err.print(m, markup=False, highlight=False))
           if corrected or traces else None)
    m = export_suites(list(runs), dest, min_kill=min_kill, margin=margin, pairs_per_task=pairs_per_task, replace=replace,
                      sandbox=box, workers=workers, corrected=corrected, traces=traces)
    fixed = f", {m.corrected} corrected-value SFT pairs" if m.corrected is not None else ""
    fixed += f", {m.traced} trace-scratchpad SFT pairs" if m.traced is not None else ""
    console.print(f"wrote {dest}: {m.sft} SFT pairs, {m.preference} preference pairs, {m.grpo} GRPO prompts{fixed} "
                  f"over {len(m.source_tasks)} tasks", markup=False, highlight=False)
    for why, n in sorted(m.not_corrected.items()):
        console.print(f"  not corrected ({n}): {why}", markup=False, highlight=False)
    for why, n in sorted(m.not_traced.items()):
        console.print(f"  not traced ({n}): {why}", markup=False, highlight=False)


@tests_app.command("import-teacher")
@handled
def tests_import_teacher(
    teacher_file: Path = TEACHER_FILE,
    suite: str = TEACHER_SUITE,
    out: str = typer.Option(..., "--out", help="a name (written under ./curricula, where harness train finds it) "
                                               "or a folder path"),
    min_kill: float = typer.Option(0.8, "--min-kill", help="keep valid suites with at least this kill rate"),
    mutant_cap: Optional[int] = typer.Option(DEFAULT.mutant_cap, min=1, help="at most this many mutants per task, "
                                             "sampled (a run's default)"),
    seed: int = typer.Option(DEFAULT.mutant_seed, help="seed of the mutant sample"),
    contract: str = typer.Option("tests", help="the prompt contract the rows' prompts are asked with"),
    sandbox: str = typer.Option("auto", help="docker, local, or auto"),
    workers: int = typer.Option(1, min=1, help="suites scored at once"),
    replace: bool = typer.Option(False, help="overwrite the folder if it exists"),
):
    """SFT data from a teacher model's suites, each scored by the harness's own metric and kept when valid,
    killing at least --min-kill, and not embedding the reference; the other lines are listed with why."""
    dest = Path(out) if "/" in out else curriculum_roots()[0] / out
    box = make_sandbox(sandbox, notice=lambda m: err.print(m, markup=False, highlight=False))
    m = import_teacher(teacher_file, suite, dest, sandbox=box, min_kill=min_kill, mutant_cap=mutant_cap,
                       mutant_seed=seed, contract=contract, workers=workers, replace=replace)
    console.print(f"wrote {dest}: {m.sft} SFT pairs from {m.lines} lines over {len(m.source_tasks)} tasks; "
                  f"{len(m.left_out)} left out", markup=False, highlight=False)
    for b in m.left_out:
        console.print(f"  line {b.line}{' (' + b.task + ')' if b.task else ''}: {b.why}", markup=False, highlight=False)


@tests_app.command("style-contract")
@handled
def tests_style_contract(
    teacher_file: Path = TEACHER_FILE,
    suite: str = TEACHER_SUITE,
    examples: str = typer.Option(..., "--examples", help="comma-separated tasks whose teacher suites are shown "
                                                         "(keep them out of the evaluation)"),
    out: Path = typer.Option(..., "--out", help="the contract file to write (.toml)"),
    replace: bool = typer.Option(False, help="overwrite the file if it exists"),
):
    """The prompted control for a teacher's style: the style contract with the teacher's suites for
    --examples in its system text, for `harness run --kind tests --model MODEL::OUT`."""
    made = teacher_style_contract(teacher_file, suite, [e for e in examples.split(",") if e], out, replace=replace)
    console.print(f"wrote {out}: contract {made.name}; run it with --model MODEL::{out}", markup=False,
                  highlight=False)
