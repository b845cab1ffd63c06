"""Training data from test-writing runs: `harness tests export RUN... --out NAME`.

Every tested round of every trial of a `--kind tests` run is a written suite for its task,
with its score (valid, kill rate) in the round's record and its text in the round's
workspace snapshot. The export writes, into one folder (the layout of a curriculum, so
`harness train` finds it by name and records the tasks it covers):

    sft.jsonl          SftRow: the task's plain-completion prompt (the contract's first
                       message with the solution read-only and the test file as it starts)
                       and a valid suite with a kill rate of at least --min-kill, as a
                       whole-file answer; each distinct suite once
    preference.jsonl   PreferenceRow: the same prompt, a chosen and a rejected answer of the
                       same task: valid against invalid, or a kill rate at least --margin
                       higher (TRL's conversational preference form: prompt, chosen, rejected)
    grpo-tests.jsonl   TestsGrpoRow: one prompt per task, for the GRPO environment `tests`
                       (reward: validity x kill rate, train/rewards.py)
    sft-corrected.jsonl  with `--corrected`: SftRow of the model's own invalid
                       suites whose fault was wrong expected values, those values replaced
                       by the correct solution's (corrected.py), each kept only when the
                       corrected suite scores valid and does not embed the reference, with
                       its provenance (run, configuration, trial, round, values replaced,
                       kill rate); suites of fill-mode runs are not corrected (their
                       answers are placeholders)
    sft-traces.jsonl   with `--traces`: SftRow of the SFT rows' suites with the correct
                       solution's run of each assertion's call written above it
                       (traces.py), asked with the trace contract of the task's language
                       (`tests-trace`; Python's alone: other languages' suites are counted
                       as not traced), with provenance
    manifest.json      the runs read, the counts, the tasks, the content hash

The prompt is the one the trial's configuration was asked with (its run's contract, or the
configuration's own), so a fill-mode run's suites (with FILL placeholders) train fill-mode
answers."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from pydantic import Field

from ..contract import PromptContract, load_contract, run_contract
from ..agents.editformat import render_whole
from ..errors import BadInput
from ..fs import written_folder
from ..hashing import hash_files
from ..records import Record, RunManifest, TestWritingSettings
from ..store import RunFolder
from ..suite import suite_of_run
from ..task import Task
from ..sandbox.base import Sandbox
from ..training_files import MANIFEST_FILE, SFT_FILE, ChatMessage, CorrectedValues, RunSuite, SftRow, TracedSuite, write_jsonl
from .corrected import Corrected, correct_all
from .traces import traced_all, traces_for
from .score import SuiteToScore, score_suites
from .written import start_files, test_file

PREFERENCE_FILE = "preference.jsonl"
GRPO_FILE = "grpo-tests.jsonl"   # not grpo.jsonl: the repair environment reads that name
CORRECTED_FILE = "sft-corrected.jsonl"
TRACES_FILE = "sft-traces.jsonl"


class PreferenceRow(Record):
    schema_version: Literal[1] = 1
    task_id: str
    source_task: str
    prompt: list[ChatMessage] = Field(min_length=1)
    chosen: list[ChatMessage] = Field(min_length=1)
    rejected: list[ChatMessage] = Field(min_length=1)
    chosen_score: dict[str, float | bool | None]
    rejected_score: dict[str, float | bool | None]
    chosen_from: RunSuite | None = None    # the rounds the two answers were written in
    rejected_from: RunSuite | None = None


class TestsGrpoRow(Record):
    """A GRPO prompt of the tests environment: the suite task it writes tests for (by
    suite and slug) and how its suites are scored."""

    __test__ = False
    schema_version: Literal[1] = 1
    task_id: str
    source_task: str                 # <suite>/<slug>
    suite_path: str                  # where the suite was when exported
    prompt: list[ChatMessage] = Field(min_length=1)
    tests: TestWritingSettings


class TestsExportManifest(Record):
    __test__ = False
    schema_version: Literal[1] = 1
    kind: Literal["test-writing"] = "test-writing"
    runs: list[str]
    min_kill: float
    margin: float
    sft: int
    preference: int
    grpo: int
    corrected: int | None = None     # None: not asked for (no sandbox)
    not_corrected: dict[str, int] = Field(default_factory=dict, description="invalid suites left out, by why")
    traced: int | None = None        # None: not asked for (--traces)
    not_traced: dict[str, int] = Field(default_factory=dict, description="SFT suites given no trace row, by why")
    source_tasks: list[str]
    content_hash: str = ""


@dataclass
class WrittenSuite:
    task: Task
    source_task: str
    prompt: list[ChatMessage]
    text: str
    valid: bool
    kill_rate: float | None
    tests: TestWritingSettings
    run: str = ""
    config: str = ""
    trial: int = 0
    round: int = 0

    @property
    def rank(self) -> tuple[int, float]:
        return (int(self.valid), self.kill_rate or 0.0)

    def score(self) -> dict[str, float | bool | None]:
        return {"valid": self.valid, "kill_rate": self.kill_rate}

    def provenance(self) -> RunSuite:
        return RunSuite(run=self.run, config=self.config, trial=self.trial, round=self.round, valid=self.valid,
                        kill_rate=self.kill_rate)


def prompt_for(task: Task, contract: PromptContract) -> list[ChatMessage]:
    """The plain-completion prompt of a test-writing trial (contract.completion_prompt):
    the test file to write, the solution read-only (kinds/tests.py)."""
    start, written = start_files(task), test_file(task)
    return [ChatMessage(**m) for m in contract.completion_prompt(
        task, {written: start[written]}, {f: start[f] for f in task.solution_files})]


def answer_for(task: Task, text: str) -> list[ChatMessage]:
    return [ChatMessage(role="assistant", content=render_whole({test_file(task): text}))]


def written_suites(run_dir: Path) -> list[WrittenSuite]:
    """Every tested round's suite of a test-writing run, in trial order."""
    folder = RunFolder(run_dir)
    manifest: RunManifest = folder.read_manifest()
    tests = manifest.tests  # what a test-writing run records, and no run of another kind
    if tests is None:
        raise BadInput(f"{run_dir}: not a test-writing run (its trials are {manifest.kind} trials)")
    suite = suite_of_run(manifest)
    out = []
    for cfg in manifest.configs:
        contract = run_contract(folder, cfg.name)
        for slug in manifest.tasks:
            task = suite.task(slug)
            if task.content_hash != manifest.task_hashes.get(slug):
                raise BadInput(f"{run_dir}: task {slug} changed since the run; its suites were scored on another version")
            prompt = prompt_for(task, contract)
            for k in range(1, manifest.trials + 1):
                result = folder.read_result(cfg.name, slug, k)
                if result is None:
                    continue
                for r in result.rounds:
                    path = folder.trial_dir(cfg.name, slug, k) / f"round-{r.round}" / "workspace" / test_file(task)
                    if r.valid is None or not path.is_file():
                        continue  # not scored (an infrastructure error), or no snapshot
                    out.append(WrittenSuite(task, f"{manifest.suite}/{slug}", prompt,
                                            path.read_bytes().decode(errors="replace"), r.valid, r.kill_rate, tests,
                                            run=manifest.run_id, config=cfg.name, trial=k, round=r.round))
    return out


def _asked(s: WrittenSuite) -> tuple[str, str]:
    """The task and the whole prompt: what makes two suites answers to the same request."""
    return s.source_task, json.dumps([m.model_dump() for m in s.prompt])


def _distinct(suites: list[WrittenSuite]) -> list[WrittenSuite]:
    seen, out = set(), []
    for s in suites:
        key = (*_asked(s), s.text)
        if key not in seen:
            seen.add(key)
            out.append(s)
    return out


def preference_pairs(suites: list[WrittenSuite], margin: float, per_task: int) -> list[tuple[WrittenSuite, WrittenSuite]]:
    """Pairs of the same task and prompt: a valid suite against an invalid one, or against
    a valid one whose kill rate is at least `margin` lower; the best chosen first, at most
    `per_task` pairs per task."""
    groups: dict[tuple[str, str], list[WrittenSuite]] = {}
    for s in suites:
        groups.setdefault(_asked(s), []).append(s)
    pairs = []
    for group in groups.values():
        ranked = sorted(group, key=lambda s: s.rank, reverse=True)
        found = [(a, b) for i, a in enumerate(ranked) if a.valid for b in ranked[i + 1:]
                 if not b.valid or (a.kill_rate or 0.0) - (b.kill_rate or 0.0) >= margin]
        pairs += found[:per_task]
    return pairs


def corrected_rows(suites: list[WrittenSuite], out_name: str, sandbox: Sandbox, workers: int = 1
                   ) -> tuple[list[SftRow], dict[str, int]]:
    """SFT rows of the invalid suites whose wrong expected values corrected.py replaced,
    kept where the corrected suite scores valid (with the run's own mutant sample) and
    does not embed the reference; and how many were left out, by why."""
    invalid = [s for s in suites if not s.valid and not s.tests.fill]
    skipped: dict[str, int] = {}

    def skip(why: str) -> None:
        skipped[why] = skipped.get(why, 0) + 1

    fixed: list[tuple[WrittenSuite, Corrected]] = []
    for s, got in zip(invalid, correct_all(sandbox, [(s.task, s.text.encode()) for s in invalid], workers=workers)):
        if isinstance(got, Corrected):
            fixed.append((s, got))
        else:
            skip(got.why)
    rows = []
    for (mutant_cap, mutant_seed) in sorted({(s.tests.mutant_cap or 0, s.tests.mutant_seed) for s, _ in fixed}):
        group = [(s, c) for s, c in fixed if (s.tests.mutant_cap or 0, s.tests.mutant_seed) == (mutant_cap, mutant_seed)]
        scored = score_suites(sandbox, [SuiteToScore(s.task, c.source) for s, c in group], workers=workers,
                              mutant_cap=mutant_cap or None, mutant_seed=mutant_seed)
        for (s, c), score in zip(group, scored):
            assert score is not None  # without on_failure a suite whose scoring failed raised instead
            if not score.valid:
                skip(f"the corrected suite is not valid: {score.why_invalid}")
            elif score.embeds_reference:
                skip("the corrected suite embeds the reference")
            else:
                rows.append(SftRow(
                    task_id=f"{out_name}/{s.task.slug}", source_task=s.source_task,
                    messages=[*s.prompt, *answer_for(s.task, c.source.decode("utf-8", "surrogateescape"))],
                    provenance=CorrectedValues(run=s.run, config=s.config, trial=s.trial, round=s.round,
                                               replaced=c.replaced, comparisons=c.comparisons,
                                               kill_rate=score.kill_rate)))
    return rows, skipped


def trace_rows(suites: list[WrittenSuite], out_name: str, sandbox: Sandbox, workers: int = 1
               ) -> tuple[list[SftRow], dict[str, int]]:
    """SFT rows of `suites` with their traces, asked with the trace contract (traces.py); and
    the suites left out, by why."""
    skipped: dict[str, int] = {}
    rows = []
    for s, text in zip(suites, traced_all(sandbox, [(s.task, s.text.encode("utf-8", "surrogateescape")) for s in suites],
                                          workers=workers)):
        contract = traces_for(s.task)
        if contract is None or text is None:
            why = f"{s.task.layout.title} suites are not traced" if contract is None else "the trace run gave nothing back"
            skipped[why] = skipped.get(why, 0) + 1
            continue
        rows.append(SftRow(task_id=f"{out_name}/{s.task.slug}", source_task=s.source_task,
                           messages=[*prompt_for(s.task, load_contract(contract)),
                                     *answer_for(s.task, text.decode("utf-8", "surrogateescape"))],
                           provenance=TracedSuite(run=s.run, config=s.config, trial=s.trial, round=s.round,
                                                  traces=text.count(b"# trace of "), kill_rate=s.kill_rate)))
    return rows, skipped


def export_suites(runs: list[Path], out: Path, *, min_kill: float = 0.8, margin: float = 0.2, pairs_per_task: int = 8,
                  replace: bool = False, sandbox: Sandbox | None = None, workers: int = 1, corrected: bool = False,
                  traces: bool = False) -> TestsExportManifest:
    """Export the runs' suites into `out`; in `sandbox`, with `corrected` the corrected-value
    rows too, and with `traces` the SFT suites with their trace scratchpads."""
    if (corrected or traces) and sandbox is None:
        raise BadInput("--corrected and --traces run the correct solution: they need a sandbox")
    if not runs:
        raise BadInput("name at least one test-writing run to export")
    if not 0 <= min_kill <= 1 or not 0 < margin <= 1:
        raise BadInput("--min-kill must be in [0, 1] and --margin in (0, 1]")
    suites = _distinct([s for run in runs for s in written_suites(Path(run))])
    if not suites:
        raise BadInput("the runs hold no scored suite")
    if out.exists() and not replace:
        raise BadInput(f"{out}: exists already (use --replace to overwrite it)")

    def task_id(s: WrittenSuite) -> str:
        return f"{out.name}/{s.task.slug}"

    good = [s for s in suites if s.valid and (s.kill_rate or 0.0) >= min_kill]
    sft = [SftRow(task_id=task_id(s), source_task=s.source_task, messages=[*s.prompt, *answer_for(s.task, s.text)],
                  provenance=s.provenance()) for s in good]
    prefs = [PreferenceRow(task_id=task_id(a), source_task=a.source_task, prompt=a.prompt,
                           chosen=answer_for(a.task, a.text), rejected=answer_for(b.task, b.text),
                           chosen_score=a.score(), rejected_score=b.score(), chosen_from=a.provenance(),
                           rejected_from=b.provenance())
             for a, b in preference_pairs(suites, margin, pairs_per_task)]
    firsts = {s.source_task: s for s in reversed(suites)}
    grpo = [TestsGrpoRow(task_id=task_id(s), source_task=s.source_task, suite_path=str(s.task.path.parent),
                         prompt=s.prompt, tests=s.tests) for s in sorted(firsts.values(), key=lambda s: s.source_task)]
    fixed, not_corrected = corrected_rows(suites, out.name, sandbox, workers) if corrected and sandbox else ([], {})
    traced, not_traced = trace_rows(good, out.name, sandbox, workers) if traces and sandbox else ([], {})
    manifest = TestsExportManifest(runs=[str(r) for r in runs], min_kill=min_kill, margin=margin, sft=len(sft),
                                   preference=len(prefs), grpo=len(grpo),
                                   corrected=len(fixed) if corrected else None,
                                   not_corrected=not_corrected, traced=len(traced) if traces else None,
                                   not_traced=not_traced, source_tasks=sorted(firsts))
    files = ((SFT_FILE, PREFERENCE_FILE, GRPO_FILE) + ((CORRECTED_FILE,) if corrected else ())
             + ((TRACES_FILE,) if traces else ()))
    with written_folder(out) as staging:
        write_jsonl(staging / SFT_FILE, sft)
        write_jsonl(staging / PREFERENCE_FILE, prefs)
        write_jsonl(staging / GRPO_FILE, grpo)
        if corrected:
            write_jsonl(staging / CORRECTED_FILE, fixed)
        if traces:
            write_jsonl(staging / TRACES_FILE, traced)
        manifest.content_hash = hash_files({n: (staging / n).read_bytes() for n in files})
        (staging / MANIFEST_FILE).write_text(manifest.model_dump_json(indent=2) + "\n")
    return manifest
