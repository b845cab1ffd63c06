"""`harness predict eval`: a model predicts the items of a set, scored against the observed
values, written as a run folder so `harness report` and `compare` read it like any run.

With `resume`, a run's trials that have no outcome run again (a provider that failed, a
stopped run), on the same set, which must not have changed; the rest are kept.

No agent: each item's prompt (prompt.py, or cruxeval.py for CruxEval's items) goes straight
to the model's chat completions endpoint through litellm, with the run's sampling
(temperature, top-p; `trials` samples per item, the CLI's `--samples`), and the answer is
judged by the item's own rule (score.py): read back with `parse_answer` and compared in the
harness (exact after normalisation, floats within 1e-5), or, for an item whose rule executes
the answer (CruxEval's), evaluated in a sandbox session the worker keeps for the run and
compared by Python's `==`. Correct is +1, wrong or malformed -1 (records: `round1` is
correct). A provider that keeps failing through the retries, or a sandbox that fails, is an
infrastructure error on that trial, never a wrong answer, and the trial has no outcome and
counts nowhere.

The run folder is the runner's (store.py): one "task" per item (its id), one trial per
try, one round. What the frame cannot hold, each item's task and the kinds of code it came
from, is in `predict.json` beside the manifest, for the per-source breakdown (breakdown.py)."""

from __future__ import annotations

import json
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Literal

from pydantic import Field

from .. import __version__
from ..errors import BadInput, InfraError
from ..fs import write_record
from ..languages.python.expression import expression_value
from ..models import check_access, config_name, parse_model
from ..records import (AgentCounters, ConfigManifest, InfraFailure, ModelCall, Record, RoundRecord, RoundTimings,
                       RoundTrajectory, RunManifest, Sampling, Status, TestCaseResult, TestReport, TrialOutcome,
                       TrialResult)
from ..sandbox import Sandbox, SandboxSession, make_sandbox
from ..store import RESULT, RunFolder, new_run_id, utc_now
from . import cruxeval
from .ask import Ask, asker
from .build import read_items
from .config import PredictEvalConfig
from ..training_files import MANIFEST_FILE
from .items import SOURCE_KINDS, PredictItem, PredictManifest, PythonAssertion, SourceKind
from .prompt import FORMAT_VERSION, item_messages, prompt_hash, terms_hash
from .score import score

PREDICT_FILE = "predict.json"
AGENT = "predict"          # what stands in the agent's place in the manifest: no agent
SANDBOX = "none: answers compared with values observed when the set was built"
EXECUTED = "{backend}: each answer evaluated there, as the runner (CruxEval's rule)"


class ItemFacts(Record):
    task: str
    check: str
    sources: list[SourceKind]


class PredictRun(Record):
    """What a prediction run adds to its manifest: the set it read and each item's task and
    source kinds, by item id (the run's task slugs)."""

    schema_version: Literal[1] = 1
    kind: Literal["output-prediction"] = "output-prediction"
    set: str
    set_hash: str = Field(description="the set's items.jsonl hash")
    split: str
    format_version: int
    items: dict[str, ItemFacts]
    benchmark: str | None = Field(None, description="the published benchmark the set was read from (cruxeval-o)")


def read_set(root: Path, name: str, split: str) -> tuple[PredictManifest, list[PredictItem]]:
    folder = root / name
    manifest_file = folder / MANIFEST_FILE
    if not manifest_file.is_file():
        raise BadInput(f"--items {name}: no set at {folder} (build one with `harness predict build`)")
    try:
        manifest = PredictManifest.model_validate_json(manifest_file.read_bytes())
    except ValueError:
        raise BadInput(f"{manifest_file}: not an output-prediction set") from None
    version = cruxeval.FORMAT_VERSION if manifest.benchmark == cruxeval.BENCHMARK else FORMAT_VERSION
    if manifest.format_version != version:
        raise BadInput(f"--items {name}: answer format {manifest.format_version}; this harness asks in "
                       f"format {version} (rebuild the set)")
    items = [i for i in read_items(folder) if split in ("all", i.split)]
    if not items:
        raise BadInput(f"--items {name}: no items in the {split} split")
    return manifest, items


def executes(items: list[PredictItem]) -> bool:
    """Whether any item's rule evaluates its answers in the sandbox."""
    return any(isinstance(i.compare, PythonAssertion) for i in items)


def set_prompt_hash(items: list[PredictItem]) -> str:
    """The prompts' hash a run records (and --resume checks): CruxEval's beside the other."""
    other = terms_hash(items)  # Python's terms, a program's output: empty for C++ items alone
    return prompt_hash() + ("+" + cruxeval.prompt_hash() if executes(items) else "") + ("+" + other if other else "")


class Sessions:
    """A sandbox session per worker thread, opened with its first answer to evaluate and
    kept for the run (each evaluation ends every process it started and empties what it
    wrote, sandbox/capture.py); one that fails is closed and the next answer opens another."""

    def __init__(self, box: Sandbox):
        self.box = box
        self._local = threading.local()
        self._open: list[SandboxSession] = []
        self._lock = threading.Lock()

    def evaluate(self, expression: str, timeout_s: float) -> dict | None:
        session = getattr(self._local, "session", None)
        if session is None:
            session = self._local.session = self.box.session("predict-eval")
            with self._lock:
                self._open.append(session)
        try:
            return expression_value(session, expression, timeout_s)
        except InfraError:
            self._local.session = None
            session.close()
            raise

    def close(self) -> None:
        with self._lock:
            sessions, self._open = self._open, []
        for session in sessions:
            session.close()


def run_item(item: PredictItem, trial: int, ask: Ask, folder: RunFolder, run_id: str, cfg: str,
             model: str, suite: str, evaluate: cruxeval.Evaluate | None = None) -> TrialResult:
    trial_dir = RunFolder.fresh_trial_dir(folder.trial_dir(cfg, item.id, trial))
    messages = [m.model_dump() for m in item_messages(item)]
    started_at, t0 = utc_now(), time.monotonic()
    rounds, passed_round, failure = [], None, None
    try:
        reply = ask(messages)
        seconds = round(time.monotonic() - t0, 4)
        scored = score(reply.text, item.call, item.expected, item.compare, evaluate=evaluate)
    except InfraError as exc:  # the provider kept failing, or the sandbox an answer runs in did
        failure = InfraFailure(kind=exc.kind.value, message=str(exc), attempts=exc.attempts)
    else:
        correct = scored.correct
        counters = AgentCounters(malformed_responses=int(scored.malformed), empty_responses=int(not reply.text.strip()),
                                 prompt_tokens=reply.prompt_tokens, completion_tokens=reply.completion_tokens)
        status = Status.passed if correct else Status.failed
        why = None if correct else ("not in the answer format" if scored.malformed else f"expected {item.answer!r}")
        if scored.predicted is not None and isinstance(item.compare, PythonAssertion):
            why = why and f"{why}; the answer evaluated to {json.dumps(scored.predicted['o'][0])[:500]}"
        report = TestReport(status=status, built=True, backend=AGENT,
                            tests=[TestCaseResult(name=item.check, status=status, message=why)])
        write_record(trial_dir / "round-1" / "trajectory.json", RoundTrajectory(
            round=1, message=messages[-1]["content"], sent_at=started_at, response=reply.text, counters=counters,
            calls=[ModelCall(started_at=started_at, finished_at=utc_now(), seconds=seconds, request=messages,
                             response=reply.text, prompt_tokens=reply.prompt_tokens,
                             completion_tokens=reply.completion_tokens)]))
        rounds.append(RoundRecord(round=1, counters=counters, test_report=report,
                                  timings=RoundTimings(model_seconds=seconds, total_seconds=seconds)))
        passed_round = 1 if correct else None
    outcome = (TrialOutcome.infra_error if failure is not None
               else TrialOutcome.passed if passed_round else TrialOutcome.failed)
    result = TrialResult(run_id=run_id, config=cfg, task=item.id, trial=trial, suite=suite,
                         task_hash=item.code_hash, model=model, outcome=outcome, passed_round=passed_round,
                         rounds=rounds, infra_error=failure, started_at=started_at, finished_at=utc_now())
    write_record(trial_dir / RESULT, result)
    return result


@dataclass
class Evaluated:
    folder: RunFolder
    results: list[TrialResult]

    def count(self, outcome: TrialOutcome) -> int:
        return sum(r.outcome is outcome for r in self.results)


Started = tuple[RunFolder, RunManifest, list[PredictItem], Sandbox | None]


def _sandbox(config: PredictEvalConfig, items: list[PredictItem]) -> Sandbox | None:
    """Where the items' answers are evaluated: only for a rule that executes them."""
    return make_sandbox(config.sandbox) if executes(items) else None


def _start(config: PredictEvalConfig, command_line: list[str]) -> Started:
    assert config.model is not None and config.items is not None  # the config asks for both without --resume
    spec = parse_model(config.model, config.api_base)
    if spec.builtin:
        raise BadInput(f"--model {spec.name} answers with code, not predictions; name a model that predicts")
    set_manifest, items = read_set(config.items_root(), config.items, config.split)
    check_access(spec)
    box = _sandbox(config, items)
    run_id = config.run_id or new_run_id()
    folder = RunFolder.create(config.runs_dir, run_id)
    manifest = RunManifest(
        run_id=run_id, created_at=utc_now(), command_line=command_line, harness_version=__version__,
        suite=f"predict:{set_manifest.name}", suite_version=f"{config.split} split", suite_hash=set_manifest.content_hash,
        task_hashes={i.id: i.code_hash for i in items}, tasks=[i.id for i in items], trials=config.trials, rounds=1,
        sandbox=EXECUTED.format(backend=box.backend) if box else SANDBOX, executor="threads", workers=config.workers,
        configs=[ConfigManifest(name=config_name(spec), model=spec.litellm_model, api_base=spec.api_base,
                                adapter=spec.adapter, sampling=Sampling(temperature=config.temperature, top_p=config.top_p),
                                agent_profile=AGENT, agent_hash=set_prompt_hash(items), aider_version="none",
                                edit_format="predict", contract=f"predict-v{set_manifest.format_version}",
                                contract_hash=set_prompt_hash(items))])
    folder.write_manifest(manifest)
    write_record(folder.root / PREDICT_FILE, PredictRun(
        set=set_manifest.name, set_hash=set_manifest.content_hash, split=config.split,
        format_version=set_manifest.format_version, benchmark=set_manifest.benchmark,
        items={i.id: ItemFacts(task=i.task, check=i.check,
                               sources=[k for k in SOURCE_KINDS if any(p.source == k for p in i.sources)])
               for i in items}))
    return folder, manifest, items, box


def _resumed(config: PredictEvalConfig, resume: str) -> Started:
    """The run to continue (`resume`, config.resume), and its items from the set it read,
    which must not have changed."""
    folder = RunFolder.open(config.runs_dir, resume)
    facts = read_predict_run(folder.root)
    if facts is None:
        raise BadInput(f"--resume {config.resume}: not a prediction run (no {PREDICT_FILE})")
    manifest = folder.read_manifest()
    set_manifest, items = read_set(config.items_root(), facts.set, facts.split)
    if set_manifest.content_hash != facts.set_hash:
        raise BadInput(f"--resume {config.resume}: set {facts.set} changed since the run started; its items would mix two versions")
    if set_prompt_hash(items) != manifest.configs[0].contract_hash:
        raise BadInput(f"--resume {config.resume}: the prediction prompt changed since the run started")
    return folder, manifest, items, _sandbox(config, items)


def evaluate(config: PredictEvalConfig, *, command_line: list[str] | None = None,
             progress: Callable[[TrialResult], None] | None = None) -> Evaluated:
    """A new prediction run, or with `resume` the trials of one that have no outcome (the
    provider failed them, or the run was stopped)."""
    folder, manifest, items, box = _resumed(config, config.resume) if config.resume else _start(config, command_line or [])
    cfg = manifest.configs[0]
    jobs = [(item, k) for item in items for k in range(1, manifest.trials + 1)
            if not folder.is_done(cfg.name, item.id, k)]
    results: list[TrialResult] = []
    if not jobs:
        return Evaluated(folder, results)
    spec = parse_model(cfg.model, cfg.api_base)
    if config.resume:
        check_access(spec)
    ask = asker(spec, retries=config.retries, backoff_s=config.backoff_s, timeout_s=config.timeout_s,
                temperature=cfg.sampling.temperature, top_p=cfg.sampling.top_p)
    sessions = Sessions(box) if box is not None else None
    try:
        with ThreadPoolExecutor(max_workers=max(1, min(config.workers, len(jobs))), thread_name_prefix="predict") as pool:
            for result in pool.map(lambda job: run_item(job[0], job[1], ask, folder, manifest.run_id, cfg.name,
                                                        cfg.model, manifest.suite,
                                                        sessions.evaluate if sessions else None), jobs):
                results.append(result)
                if progress is not None:
                    progress(result)
    finally:
        if sessions is not None:
            sessions.close()
    manifest.finished_at = utc_now()
    folder.write_manifest(manifest)
    return Evaluated(folder, results)


def read_predict_run(run_dir: Path) -> PredictRun | None:
    """The run's prediction facts, or None for a run that is not a prediction run."""
    path = Path(run_dir) / PREDICT_FILE
    if not path.is_file():
        return None
    return PredictRun.model_validate_json(path.read_bytes())
