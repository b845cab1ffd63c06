"""`harness curriculum build` and `synth`: candidates, then near-duplicates collapsed, then
validation in the sandbox, then at most K per suite task and failure kind, drawn with the
seed, then the curriculum written with its manifest.

Every candidate's fate is recorded (candidates.jsonl) and counted by reason in the
manifest's summary, with the failure taxonomy per task and per kind."""

from __future__ import annotations

import random
import re
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterator

from .. import __version__
from ..contract import load_contract
from ..errors import BadInput
from ..executor import make_executor
from ..store import utc_now
from ..suite import Suite, find_suite
from ..hold_out import HoldOut
from .candidates import Candidate, from_mutant, from_run, open_run, select_kinds
from .config import BuildConfig, CommonOptions, SynthConfig, contract_for
from .exports import check_layout, control_names, repair_slug, write_curriculum
from .records import (
    BuildOptions,
    ContractRef,
    CurriculumManifest,
    CurriculumSummary,
    DropReason,
    KindCount,
    RepairRecord,
    RunOrigin,
    RunSource,
)
from .taxonomy import FailureKind, describe
from .candidate_validation import ProgressFn, Validator

_NAME = re.compile(r"[a-z0-9][a-z0-9_.-]*")


@dataclass
class Built:
    path: Path | None          # None when no candidate was kept (nothing is written)
    manifest: CurriculumManifest


def _check_name(name: str) -> None:
    if not _NAME.fullmatch(name):
        raise BadInput(f"--out {name!r} is not a curriculum name (lowercase letters, digits, '.', '_', '-')")


def _dedupe(candidates: list[Candidate], seed: int) -> None:
    """Keep one candidate per suite task and normal form, drawn with the seed."""
    live = sorted((c for c in candidates if c.dropped is None), key=lambda c: c.key)
    random.Random(seed).shuffle(live)
    first: dict[tuple[str, str | None], Candidate] = {}
    for c in live:
        kept = first.setdefault((c.source_task, c.normalized_hash), c)
        if kept is not c:
            c.drop(DropReason.duplicate, f"same normal form as {_label(kept)}")


def _cap(candidates: list[Candidate], k: int, seed: int) -> None:
    """At most k valid candidates per suite task and failure kind, drawn with the seed."""
    groups: dict[tuple[str, FailureKind], list[Candidate]] = {}
    for c in sorted((c for c in candidates if c.dropped is None), key=lambda c: c.key):
        groups.setdefault((c.source_task, c.kind), []).append(c)
    rng = random.Random(seed)
    for (tid, kind), group in sorted(groups.items(), key=lambda kv: (kv[0][0], kv[0][1].value)):
        if len(group) > k:
            keep = set(map(id, rng.sample(group, k)))
            for c in group:
                if id(c) not in keep:
                    c.drop(DropReason.over_cap, f"{len(group)} valid {kind.value} candidates of {tid}, {k} kept")


def _label(c: Candidate) -> str:
    o = c.origin
    if isinstance(o, RunOrigin):
        return f"{o.run_id}/{o.config}/{o.task}/trial-{o.trial}/round-{o.round}"
    return f"{c.source_task} mutant {o.file}:{o.line}:{o.column} {o.operator}"


def _summary(candidates: list[Candidate], validator: Validator) -> CurriculumSummary:
    dropped: dict[DropReason, int] = {}
    by_kind: dict[FailureKind, KindCount] = {}
    by_task: dict[str, dict[FailureKind, KindCount]] = {}
    for c in candidates:
        if c.dropped is not None:
            dropped[c.dropped] = dropped.get(c.dropped, 0) + 1
        if c.failure is None:
            continue
        for counts in (by_kind, by_task.setdefault(c.source_task, {})):
            n = counts.setdefault(c.failure.kind, KindCount())
            n.seen += 1
            n.kept += c.kept_as is not None
    order = list(FailureKind)
    sort = lambda d: dict(sorted(d.items(), key=lambda kv: order.index(kv[0])))  # noqa: E731
    return CurriculumSummary(
        candidates=len(candidates), kept=sum(c.kept_as is not None for c in candidates),
        dropped=dict(sorted(dropped.items(), key=lambda kv: list(DropReason).index(kv[0]))),
        by_kind=sort(by_kind), by_task={t: sort(v) for t, v in sorted(by_task.items())},
        sandbox_runs=validator.runs, validation_seconds=round(validator.seconds, 1), workers=validator.workers,
        backend=validator.backend,
    )


def _finish(config: BuildConfig | SynthConfig, made_from: str, candidates: list[Candidate], validator: Validator,
            source: Suite, runs: list[RunSource], suite: str | None) -> Built:
    """Cap, name, write; the curriculum and its manifest."""
    contract = load_contract(contract_for(config.contract, source.language))
    _cap(candidates, config.max_per_task, config.seed)
    kept = sorted((c for c in candidates if c.dropped is None), key=lambda c: c.key)
    taken: set[str] = set()
    records = []
    for c in kept:
        assert c.task is not None and c.failure is not None and c.expected is not None  # a kept candidate was described
        slug = repair_slug(c)
        while slug in taken:  # the same code from two suites' tasks of one name
            slug += "x"
        taken.add(slug)
        c.kept_as = slug
        records.append(RepairRecord(
            task_id=f"{config.out}/{slug}", source_task=c.source_task, source_task_hash=c.task.content_hash,
            kind=c.failure.kind, detail=c.failure.detail, normalized_hash=c.normalized_hash, origin=c.origin,
            expected_failing=sorted(t.name for t in c.expected.failing()),
            controls=control_names(c), contract=contract.name,
            contract_hash=contract.content_hash,
        ))
    manifest = CurriculumManifest(
        name=config.out, made_from=made_from, created_at=utc_now(), harness_version=__version__, content_hash="",
        source_tasks=sorted({c.source_task for c in kept}), repair_tasks=[c.kept_as for c in kept], runs=runs,
        suite=suite, contract=ContractRef(name=contract.name, version=contract.version,
                                          content_hash=contract.content_hash),
        options=BuildOptions(max_per_task=config.max_per_task, failure_kinds=config.failure_kinds, seed=config.seed,
                             hold_out=sorted(HoldOut(config.hold_out).names), controls=config.controls,
                             mutants_per_task=config.mutants_per_task),
        summary=_summary(candidates, validator),
    )
    if not kept:
        return Built(path=None, manifest=manifest)
    path = write_curriculum(config.out_root(), config.out, source.language, source.image, kept, records, candidates,
                            contract, manifest, config.replace)
    return Built(path=path, manifest=manifest)


@contextmanager
def _validator(config: CommonOptions, progress: ProgressFn | None,
               notice: Callable[[str], None] | None) -> Iterator[Validator]:
    with make_executor(config.executor, sandbox=config.sandbox, workers=config.workers, notice=notice) as executor:
        yield Validator(executor, executor.slots, config.run_timeout_s, progress)


def _check_destination(config: CommonOptions) -> None:
    """Refused before any work: a bad name or a curriculum that would be overwritten."""
    _check_name(config.out)
    if config.contract is not None:
        load_contract(config.contract)
    dest = config.out_root() / config.out
    if dest.exists() and not config.replace:
        raise BadInput(f"{dest}: a curriculum named {config.out!r} exists already (use --replace to overwrite it)")


def _warn_unmatched(hold_out: HoldOut, task_ids, notice: Callable[[str], None] | None) -> None:
    missing = hold_out.unmatched(task_ids)
    if missing and notice is not None:
        notice(f"notice: --hold-out {', '.join(missing)} names no task here; nothing is held out for it")


def build_from_runs(config: BuildConfig, progress: ProgressFn | None = None,
                    notice: Callable[[str], None] | None = None) -> Built:
    """A curriculum from the failed rounds of the given runs."""
    _check_destination(config)
    if not config.runs:
        raise BadInput("no run given")
    hold_out = HoldOut(config.hold_out)
    sources: list[RunSource] = []
    candidates: list[Candidate] = []
    suites: list[Suite] = []
    task_ids: list[str] = []
    for ref in dict.fromkeys(config.runs):
        source, suite, found = from_run(open_run(ref, config.runs_dir), hold_out)
        sources.append(source)
        suites.append(suite)
        task_ids += [f"{source.suite}/{t.slug}" for t in suite.tasks]
        candidates += found
    _warn_unmatched(hold_out, task_ids, notice)
    for what, seen in (("languages", {s.language for s in suites}), ("sandbox images", {s.image for s in suites})):
        if len(seen) > 1:
            raise BadInput(f"the runs' suites are of different {what} ({', '.join(sorted(seen))}); "
                           "one curriculum is one suite")
    select_kinds(candidates, config.failure_kinds)
    _dedupe(candidates, config.seed)
    live = [c for c in candidates if c.dropped is None]
    tasks = {c.source_task: c.live_task for c in live}
    for task in tasks.values():
        check_layout(task)
    with _validator(config, progress, notice) as validator:
        bases = validator.prepare(tasks, config.seed, config.mutants_per_task, enough=config.controls)
        for c in live:
            c.controls = bases[c.source_task].controls[:config.controls]
        validator.check(live, bases)
    return _finish(config, "runs", candidates, validator, suites[0], sources, None)


def synthesize(config: SynthConfig, progress: ProgressFn | None = None,
               notice: Callable[[str], None] | None = None) -> Built:
    """A curriculum from mutants of a suite's references: each mutant that builds and fails
    a test is a starting point, and other such mutants of the same reference its controls."""
    _check_destination(config)
    suite = find_suite(config.suite)
    hold_out = HoldOut(config.hold_out)
    tasks = {f"{suite.name}/{t.slug}": t for t in suite.select(config.tasks)}
    _warn_unmatched(hold_out, tasks, notice)
    tasks = {tid: t for tid, t in tasks.items() if tid not in hold_out}
    if not tasks:
        raise BadInput(f"suite {suite.name}: every selected task is held out")
    for task in tasks.values():
        check_layout(task)
    with _validator(config, progress, notice) as validator:
        bases = validator.prepare(tasks, config.seed, config.mutants_per_task, enough=None)
        candidates: list[Candidate] = []
        for tid, basis in bases.items():
            if not basis.reference.passed and notice is not None:
                notice(f"{tid}: the reference does not pass ({describe(basis.reference)}); no starting points from it")
            candidates += [from_mutant(suite.name, basis.task, m, report) for m, report in basis.screened]
        select_kinds(candidates, config.failure_kinds)
        _dedupe(candidates, config.seed)
        live = [c for c in candidates if c.dropped is None]
        for c in live:
            others = [m for m in bases[c.source_task].controls if m != c.mutant]
            rng = random.Random(f"{config.seed}:{c.normalized_hash}")
            picked = set(rng.sample(range(len(others)), min(config.controls, len(others))))
            c.controls = [m for i, m in enumerate(others) if i in picked]
        validator.check(live, bases)
    return _finish(config, "synth", candidates, validator, suite, [], suite.name)
