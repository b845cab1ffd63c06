"""The verifier: a structured reward for a candidate solution, judged in the harness's
process from the values the candidate's code produced in the sandbox. It asks the task's
language (`languages/registry.language_for`) for its probe (`languages.language.CallProbe`)
and never which language it is.

A task's checks come from `.meta/verifier.toml` (schema 2): each check names calls of the
task's interface in its language (C++, languages/cpp/probe/calls.py: an expression, or a
call sequence with `=>` observations; Python, languages/python/probe/calls.py: the same two
forms in Python, after a `prelude` that by default imports the names the stub defines), a
group, a weight and how values compare (`exact`, `approx` with `abs_tol`/`rel_tol`,
`unordered`, `exception`).

A task without one is judged by its own test cases where its language says they can be
checks (`Language.test_case_probe`): in Python, where the test process never executes the
candidate's code (it runs behind the proxy, in a process of its own, as another user) and
the candidate cannot read the tests (languages/python/testrun.py), each test case is a check
of weight 1, grouped by its task marker, observed as how it ended in one test round (the
round's report: pass, fail, error), and the reward is the formula below; a module that does
not import is `compile_error`, as a C++ build that fails. Not in C++, whose test file's
expected values are literals compiled into the candidate's program, where it could copy
them into what it reports, nor for a Python task whose tests run in one process with the
candidate (languages/python/inprocess.py): those need a verifier.toml, or are one line of
bad input.

1. The reference solution runs through the probe once per task, twice in a row (calls
   must give the same values every time), cached in memory and on disk by content hash
   (task, probe runtime, driver, the sandbox's compiler or interpreter). These are the
   expected values: they never enter a candidate's sandbox.
2. The candidate runs through the same probe once; its stream is read strictly
   (probe/stream.py, schema.py): cases and records in order, each once, counts as framed,
   each record of the exact shape an honest probe writes, within bounds.
3. A check passes when every one of its calls matches the reference's; the reward is
   R = sum(w_k * (2*b_k - 1)) / sum(w_k) (equal weights: the study's (1/K) * sum(2*b_k - 1)).
   Any status but ok scores -1.

Statuses: ok; compile_error (C++: does not build; Python: does not import); timeout;
crash (killed by a signal, or the candidate's process ended, before the stream did);
incomplete (the stream stopped early); forged: the candidate changed a protected file (a
test or build file), or its program wrote what no honest program of the interface writes
(a line or record outside the stream's schema, cases the task does not have, a call with
more or fewer outcomes than it observes; in Python, a frame the proxy refuses); malformed:
it names a file it may not write (file_names.py). The language's raw-text screen
(`Language.flags`, C++'s languages/cpp/screen.py) flags suspicious source; flags travel
with the verdict and decide nothing. tests/security/README.md says what this does and does
not defend against."""


from __future__ import annotations

import contextlib
import os
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Hashable, Literal, Mapping, Sequence

from pydantic import Field, ValidationError, model_validator

from .errors import BadInput, InfraError, InfraKind, invalid
from .file_names import describe, refusal
from .fs import atomic_write, read_files, read_toml
from .hashing import hash_files, sha256_bytes
from .paths import cache_dir
from .executor import Executor, Slot, using
from .executor.base import UnitFailure
from .languages.language import CallProbe, Language
from .languages.registry import language_for
from .probe.compare import Comparison, Mode, call_matches
from .probe.result import ProbeRun
from .records import CallOutcome, CheckOutcome, Record, Verdict, VerdictStatus
from .sandbox import Sandbox, make_sandbox
from .sandbox.base import SandboxSession
from .task import Task
from .staging import stage_files

VERIFIER_FILE = ".meta/verifier.toml"


# --- what a task declares ---------------------------------------------------------------


class CheckGroup(Record):
    name: str
    title: str = ""


class CheckSpec(Record):
    name: str
    group: str
    calls: list[str] = Field(min_length=1)  # every call must match the reference's
    weight: float = Field(1.0, gt=0)
    compare: Mode = "exact"
    abs_tol: float = Field(0.0, ge=0)
    rel_tol: float = Field(0.0, ge=0)

    @model_validator(mode="after")
    def _tolerance(self) -> "CheckSpec":
        if self.compare == "approx" and not (self.abs_tol or self.rel_tol):
            raise ValueError(f"check {self.name!r} compares approx but gives neither abs_tol nor rel_tol")
        if self.compare != "approx" and (self.abs_tol or self.rel_tol):
            raise ValueError(f"check {self.name!r} gives a tolerance but compares {self.compare}")
        return self

    @property
    def comparison(self) -> Comparison:
        return Comparison(mode=self.compare, abs_tol=self.abs_tol, rel_tol=self.rel_tol)


class VerifierSpec(Record):
    schema_version: Literal[2] = 2
    includes: list[str] = Field(default_factory=list, description="C++: headers the calls need beyond the solution's")
    prelude: str | None = Field(None, description="code the calls need: C++ placed before them (helpers, "
                                "using-declarations); Python run before each call (default: imports of the "
                                "public names the task's stub defines)")
    groups: list[CheckGroup] = Field(default_factory=list)
    checks: list[CheckSpec] = Field(min_length=1)

    @model_validator(mode="after")
    def _consistent(self) -> "VerifierSpec":
        groups = {g.name for g in self.groups}
        names = set()
        for c in self.checks:
            if groups and c.group not in groups:
                raise ValueError(f"check {c.name!r} names group {c.group!r}, which is not declared")
            if c.name in names:
                raise ValueError(f"check {c.name!r} is declared twice")
            names.add(c.name)
        return self

    @property
    def calls(self) -> list[str]:
        return [call for c in self.checks for call in c.calls]


def load_spec(task: Task) -> VerifierSpec | None:
    """The task's `.meta/verifier.toml`, or None when it has none (then, where its language
    allows, every test case is a check)."""
    path = task.path / VERIFIER_FILE
    if not path.is_file():
        return None
    data = read_toml(path)
    if data.get("schema_version") == 1:
        raise BadInput(f"{path}: schema_version 1 named test cases; checks now name calls (schema_version 2, harness/verify.py)")
    try:
        return VerifierSpec.model_validate(data)
    except ValidationError as exc:
        raise invalid(exc, str(path)) from None


# --- the reward -------------------------------------------------------------------------


def reward(checks: Sequence[CheckOutcome]) -> float:
    total = sum(c.weight for c in checks)
    if not checks or total <= 0:
        return -1.0
    return sum(c.weight * (1 if c.passed else -1) for c in checks) / total


# --- the reference's values -------------------------------------------------------------


class ReferenceValues(Record):
    """What the reference solution's probe recorded, per run, per case."""

    schema_version: Literal[1] = 1
    key: str
    task: str
    cases: list[str]
    runs: list[list[list[dict[str, Any]]]] = Field(min_length=2)

    @property
    def first(self) -> list[list[dict[str, Any]]]:
        return self.runs[0]


def _references_dir() -> Path:
    return cache_dir() / "verifier-references"


@dataclass
class _Plan:
    """What a task's verification needs, worked out once per task and shared by sessions."""

    task: Task
    spec: VerifierSpec
    probe: CallProbe          # the calls, each a probe case, prepared in the task's language
    reference: ReferenceValues | None = None
    lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def observations(self) -> list[int]:  # per call, the values it observes
        return self.probe.observations

    def forgery(self, cases: Sequence[list[dict[str, Any]]]) -> str | None:
        """What no honest program of the interface writes in these cases: a record per
        call, holding an outcome per observation (fewer only when a statement threw)."""
        for i, (records, observed) in enumerate(zip(cases, self.observations)):
            if len(records) != 1:
                return f"call {i} wrote {len(records)} records (a call writes one)"
            outcomes, threw = len(records[0]["o"]), "x" in records[0]
            if outcomes > observed or (outcomes < observed and not threw):
                return f"call {i} has {outcomes} outcomes for its {observed} observations"
        return None

    def checks(self, ref: ReferenceValues, cases: Sequence[list[dict[str, Any]] | None]) -> list[CheckOutcome]:
        """The checks, judged on the candidate's records per call (None: not reached)
        against the reference's."""
        out, i = [], 0
        for check in self.spec.checks:
            calls = []
            for text in check.calls:
                got = cases[i] if i < len(cases) else None
                observed = got[0] if got is not None and len(got) == 1 else None
                expected = ref.first[i][0]
                calls.append(CallOutcome(call=text, expected=expected, observed=observed,
                                         passed=call_matches(expected, observed, check.comparison)))
                i += 1
            out.append(CheckOutcome(name=check.name, group=check.group, weight=check.weight,
                                    passed=all(c.passed for c in calls), calls=calls))
        return out


def _plan(task: Task) -> _Plan:
    language = language_for(task)
    spec = load_spec(task)
    if spec is not None:
        return _Plan(task, spec, language.call_probe(task, spec.calls, includes=spec.includes, prelude=spec.prelude))
    probe = language.test_case_probe(task)
    if probe is None:
        raise BadInput(f"{task.path / VERIFIER_FILE}: missing; the verifier judges this task by the calls its "
                       "verifier.toml names (its tests' expected values would be in the candidate's program or process)")
    return _Plan(task, _test_case_spec(language, task), probe)


def _test_case_spec(language: Language, task: Task) -> VerifierSpec:
    """A check per test case of the task's own files, grouped by the task it belongs to;
    its call is the case, observed as how it ended (Language.test_case_probe)."""
    cases = language.case_texts(task)
    if not cases:
        raise BadInput(f"{task.slug}: no test cases for the verifier to check")
    return VerifierSpec(checks=[CheckSpec(name=c.name, group=f"task {c.task_id}" if c.task_id is not None else "tests",
                                          calls=[c.name]) for c in cases])


def _reference_failure(task: Task, run: ProbeRun) -> BadInput:
    error = next((line.strip() for line in (run.build_log or "").splitlines() if "error" in line), "")
    return BadInput(f"{task.slug}: the reference solution does not run through the probe "
                    f"({run.status}: {run.reason}{'; ' + error[:300] if error else ''})")


def _check_reference(plan: _Plan, ref: ReferenceValues) -> None:
    """The reference must give what its own checks can compare: one deterministic record
    per call."""
    task = plan.task
    if len(ref.cases) != len(plan.spec.calls):
        raise BadInput(f"{task.slug}: the reference's probe ran {len(ref.cases)} cases for {len(plan.spec.calls)} calls")
    i = 0
    for check in plan.spec.checks:
        for text in check.calls:
            first, second = ref.runs[0][i], ref.runs[1][i]
            if len(first) != 1:
                raise BadInput(f"{task.slug}: check {check.name!r}: the call {text!r} recorded nothing on the reference")
            if not call_matches(first[0], second[0] if len(second) == 1 else None, check.comparison):
                raise BadInput(f"{task.slug}: check {check.name!r}: the call {text!r} observes a different value on "
                               f"each run of the reference ({first[0]} then {second[0] if second else None})")
            i += 1


def _reference(plan: _Plan, session: SandboxSession) -> ReferenceValues:
    """The reference's values, from memory, the disk cache, or a probe run in `session`."""
    with plan.lock:
        if plan.reference is not None:
            return plan.reference
        task = plan.task
        key = sha256_bytes("\n".join([task.content_hash, plan.probe.key(session)]).encode())
        path = _references_dir() / f"{task.slug}-{key[:24]}.json"
        cached = None
        if path.is_file():
            try:
                cached = ReferenceValues.model_validate_json(path.read_text())
            except (ValidationError, ValueError):
                cached = None
        if cached is None or cached.key != key:
            # Calls must be deterministic: two runs show it.
            run = plan.probe.run(task.reference_files(), session, runs=2)
            if run.status != "ok":
                raise _reference_failure(task, run)
            names = [[c.name for c in stream.cases] for stream in run.streams]
            if any(n != names[0] for n in names):
                raise BadInput(f"{task.slug}: the reference's probe runs different cases on different runs")
            cached = ReferenceValues(key=key, task=task.slug, cases=names[0],
                                     runs=[[c.records for c in stream.cases] for stream in run.streams])
            _check_reference(plan, cached)
            path.parent.mkdir(parents=True, exist_ok=True)
            atomic_write(path, cached.model_dump_json().encode())  # only a reference that passed the checks above is cached
        plan.reference = cached
        return cached


# --- one candidate in one session -------------------------------------------------------


def _verdict(plan: _Plan, candidate_hash: str, status: VerdictStatus, **fields) -> Verdict:
    checks = fields.pop("checks", None)
    if checks is None:
        checks = plan.checks(plan.reference, []) if plan.reference is not None else []
    if status is not VerdictStatus.ok:
        checks = [c.model_copy(update={"passed": False}) for c in checks]
    return Verdict(task=plan.task.slug, task_hash=plan.task.content_hash, candidate_hash=candidate_hash, status=status,
                   reward=reward(checks) if status is VerdictStatus.ok else -1.0, checks=checks, **fields)


def _verify_in(plan: _Plan, ref: ReferenceValues, candidate: Mapping[str, bytes], session: SandboxSession) -> Verdict:
    task = plan.task
    provided = {k: bytes(v) for k, v in candidate.items()}
    solution = {f: provided[f] for f in task.solution_files if f in provided}
    candidate_hash = hash_files(solution)
    refused = [describe(rel, problem) for rel in provided if (problem := refusal(rel)) is not None]
    if refused:
        return _verdict(plan, candidate_hash, VerdictStatus.malformed, backend=session.backend,
                        reason=f"the candidate names files it may not write: {'; '.join(refused[:3])}")
    _, tampered = stage_files(task, provided)
    common = dict(flags=language_for(task).flags(solution), tampered=tampered, backend=session.backend)
    if tampered:
        return _verdict(plan, candidate_hash, VerdictStatus.forged,
                        reason=f"the candidate changed protected files: {', '.join(tampered)}", **common)

    run = plan.probe.run(provided, session)
    common.update(build_log=run.build_log, output=run.output, exit_code=run.exit_code,
                  build_seconds=run.build_seconds, run_seconds=run.run_seconds)
    if run.status != "ok":
        return _verdict(plan, candidate_hash, VerdictStatus(run.status), reason=run.reason, **common)
    stream = run.streams[0]
    names = [c.name for c in stream.cases]
    if names != ref.cases:
        extra = sorted(set(names) - set(ref.cases))
        why = (f"cases the task does not have: {extra[:3]}" if extra
               else f"{len(names)} cases where the task has {len(ref.cases)}")
        return _verdict(plan, candidate_hash, VerdictStatus.forged, reason=f"the program ran {why}", **common)
    cases = [c.records for c in stream.cases]
    forgery = plan.forgery(cases)
    if forgery is not None:
        return _verdict(plan, candidate_hash, VerdictStatus.forged, reason=forgery, **common)
    return _verdict(plan, candidate_hash, VerdictStatus.ok, checks=plan.checks(ref, cases), **common)


# --- the API ----------------------------------------------------------------------------

_PLANS: dict[str, _Plan] = {}
_PLANS_LOCK = threading.Lock()


def _plan_for(task: Task) -> _Plan:
    with _PLANS_LOCK:
        key = f"{task.path.resolve()}:{task.content_hash}"
        if key not in _PLANS:
            _PLANS[key] = _plan(task)
        return _PLANS[key]


def verify_in_session(task: Task, candidate: Mapping[str, bytes], session: SandboxSession) -> Verdict:
    """Verify one candidate (solution files by name) in an open session, reusing its build
    tree: an unchanged test unit is not recompiled."""
    plan = _plan_for(task)
    return _verify_in(plan, _reference(plan, session), candidate, session)


def verify(task: Task, candidate_files: Mapping[str, bytes], *, sandbox: Sandbox | str = "auto") -> Verdict:
    """Verify one candidate in a fresh session."""
    box = make_sandbox(sandbox)
    with box.session(f"verify {task.slug}", task.language) as session:
        return verify_in_session(task, candidate_files, session)


def _batches(keys: Sequence[tuple[Hashable, str]], workers: int) -> list[list[int]]:
    """Candidate indices in work units: those sharing a key (a task and what its probe's
    build depends on, what a C++ task's test unit reads) stay together (one test-unit
    compile per unit), a large group is split so every worker gets a share of the whole
    batch, and a task's units come one after another (the larger first), so the workers
    that share a task share it while its build tree is warm."""
    groups: dict[tuple[Hashable, str], list[int]] = {}
    for i, k in enumerate(keys):
        groups.setdefault(k, []).append(i)
    rank = {task: n for n, task in enumerate(dict.fromkeys(task for task, _ in keys))}
    units = []
    share = max(1, -(-len(keys) // workers))
    for (task, _), members in groups.items():
        for s in range(0, len(members), share):
            units.append((rank[task], members[s:s + share]))
    return [members for _, members in sorted(units, key=lambda u: (u[0], -len(u[1])))]


@dataclass
class _Batch:
    """Candidates of one task for one slot, by their index in the whole batch."""

    task: Task
    indices: list[int]
    candidates: list[Mapping[str, bytes]]


def failed_verdict(task: Task, candidate: Mapping[str, bytes], failure: UnitFailure) -> Verdict:
    """A candidate the harness could not judge: its verdict says why, typed."""
    solution = {f: bytes(candidate[f]) for f in task.solution_files if f in candidate}
    return Verdict(task=task.slug, task_hash=task.content_hash, candidate_hash=hash_files(solution),
                   status=VerdictStatus.error, reward=-1.0, reason=failure.record.message, infra_error=failure.record)


def _verify_batch(batch: _Batch, slot: Slot) -> list[Verdict]:
    """Every candidate's verdict: what goes wrong judging one (a sandbox that died, a bug of
    ours a candidate's output found) is that candidate's verdict, not the batch's end."""
    task = batch.task
    out = []
    for candidate in batch.candidates:
        try:
            session = slot.warm_session(("probe", task.path), _plan_for(task).probe.drop, task.language)
            out.append(verify_in_session(task, candidate, session))
        except Exception as exc:  # noqa: BLE001  typed into the verdict
            out.append(failed_verdict(task, candidate, UnitFailure.of(exc)))
            with contextlib.suppress(Exception):
                slot.close()  # its session may be in any state: the next candidate gets a fresh one
    return out


def verify_batch(items: Sequence[tuple[Task, Mapping[str, bytes]]], *, sandbox: Sandbox | str | Executor = "auto",
                 workers: int | None = None, progress: Callable[[int, Verdict], None] | None = None) -> list[Verdict]:
    """Verify candidates of any number of tasks (task, solution files) in parallel, on an
    executor's slots (or a local one's over `sandbox`), each slot keeping its session
    between units, so that candidates of a task whose test unit reads the same files, run
    one after another in one session, compile it once. Verdicts come back in input order;
    `progress` hears of each as its unit ends."""
    if not items:
        return []
    for task in {id(t): t for t, _ in items}.values():
        _plan_for(task)  # bad input surfaces here, before any session starts
    results: list[Verdict | None] = [None] * len(items)

    def verified(batch: _Batch, verdicts: list[Verdict]) -> None:
        for i, verdict in zip(batch.indices, verdicts, strict=True):
            results[i] = verdict
            if progress is not None:
                progress(i, verdict)

    def failed(batch: _Batch, failure: UnitFailure) -> None:
        verified(batch, [failed_verdict(batch.task, c, failure) for c in batch.candidates])

    def lost(batch: _Batch, why: str) -> None:
        failed(batch, UnitFailure.of(InfraError(InfraKind.node, why)))

    with using(sandbox, min(workers or os.cpu_count() or 1, len(items))) as executor:
        keys = [(id(t), _plan_for(t).probe.build_key(c)) for t, c in items]
        units = [_Batch(items[u[0]][0], u, [items[i][1] for i in u]) for u in _batches(keys, executor.slots)]
        executor.run(units, _verify_batch, label="verify", on_result=verified, on_failure=failed, on_lost=lost,
                     affinity=lambda b: b.task.path)
    return results  # type: ignore[return-value]  # every unit delivered: a verdict, or its failure's


def verify_many(task: Task, candidates: Sequence[Mapping[str, bytes]], *, sandbox: Sandbox | str | Executor = "auto",
                workers: int | None = None, progress: Callable[[int, Verdict], None] | None = None) -> list[Verdict]:
    """Verify many candidates of one task in parallel (`verify_batch`)."""
    return verify_batch([(task, c) for c in candidates], sandbox=sandbox, workers=workers, progress=progress)


def read_candidate(folder: Path, task: Task) -> dict[str, bytes]:
    """A candidate folder's files by relative name (solution files and anything else it
    holds, so edits to protected files are seen and reported as tampering)."""
    if not folder.is_dir():
        raise BadInput(f"{folder}: not a folder")
    return {rel: data for rel, data in read_files(folder).items() if rel.split("/")[0] not in (".meta", ".docs", ".git")}
