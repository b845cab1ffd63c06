"""`harness predict build`: output-prediction items observed in the sandbox.

A task's calls are its verifier checks' (`.meta/verifier.toml`: the task's inputs, written
to be probed) when it has them, else its own test cases, each case a call whose
observations are the assertions it reaches (languages/cpp/probe/cases.py), shown with the test file
around it; a Python task's, the calls its tests make (languages/python/probe/prediction.py): what
the task's language offers (`Language.item_calls`). Every version of the code — the
reference, the faulty controls, a few compiling mutants of the reference, and the model
answers recorded in runs (every round's workspace snapshot) — is built once with the
language's probe (`Language.observe_calls`: C++'s driver of the calls, or the task's own
test file against the recording Catch2 stand-in; Python's driver with the candidate behind
the proxy) and runs all the task's calls, twice. A call whose two runs agree is an item;
the truth is what the program did, never what the reference did.

Versions with the same normal form are observed once (their provenances merge), so items
are unique by (normalised code, call). Tasks are split into train and eval before any
work, and an item's split is its task's: eval tasks never reach a training row, and the
manifest's `source_tasks` (what training records as seen) holds only train tasks.

The set is written as a folder under the curricula root (`curricula/<name>/` by default),
and the folder is a suite (`suite.toml`, found by name like any suite) of output-prediction
tasks, one per item (task.py's kinds): the prompt as the instructions, an empty
`prediction.txt` as the solution file, the expected answer as the reference (what the gold
model answers), and the item itself in `.meta/item.json`, which is what `predict eval`
reads. Beside them are the exports: `items.jsonl`, and the training rows, which training
finds by the set's name with the manifest's `source_tasks`, so `sft.jsonl` trains with
`harness train sft` as it is."""

from __future__ import annotations

import json
import os
import random
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Protocol

from ..curriculum.candidates import interface, open_run, screening_order, starting_code
from ..curriculum.normalize import normalized_hash
from ..errors import BadInput
from ..fs import atomic_write, write_record, written_folder
from ..hashing import sha256_bytes
from ..languages import language_of, no_language
from ..languages.registry import language_for
from ..probe.compare import Comparison, call_matches
from ..sandbox import Sandbox, SandboxSession, make_sandbox
from ..sandbox.base import SandboxLimits
from ..executor.local import work_in_sessions
from ..store import utc_now
from ..suite import MANIFEST as SUITE_MANIFEST, Suite, SuiteManifest, find_suite, read_manifest, render_manifest
from ..suite_validation import faulty_controls
from ..task import Task
from ..training_files import MANIFEST_FILE, SFT_FILE, SftRow
from ..verify import CheckSpec, load_spec
from .config import DEFAULT_EVAL_SHARE, PredictBuildConfig
from .items import (EVAL_GRPO_FILE, EVAL_SFT_FILE, GRPO_FILE, ITEMS_FILE, SOURCE_KINDS, PredictGrpoRow, PredictItem,
                    PredictManifest, Provenance, item_id)
from .prompt import FORMAT_VERSION, MAX_OBSERVATIONS, answer_message, item_messages, render_answer
from .score import PREDICTION_RULE

ProgressFn = Callable[[str], None]


def rule_for(check: CheckSpec) -> Comparison:
    """How a prediction is compared with the observed value: arrays the check calls
    unordered stay unordered; everything else is exact but for floats (FLOAT_TOLERANCE)."""
    if check.compare == "unordered":
        return Comparison(mode="unordered")
    return PREDICTION_RULE


def _in_terms(rule: Comparison, task: Task) -> Comparison:
    """The rule with answers' values written in the form of the task's language."""
    return rule.model_copy(update={"answer": language_for(task).prediction_terms().answer})


def split_tasks(slugs: list[str], usable: list[str], eval_tasks: list[str] | None, share: float | None,
                seed: int) -> set[str]:
    """The eval tasks: those named (among `slugs`, the tasks asked for), or a seeded sample
    of round(share * n) of the `usable` ones (those with calls), so a share is never spent
    on a task that gives no items."""
    if eval_tasks is not None:
        unknown = next((t for t in eval_tasks if t not in slugs), None)
        if unknown is not None:
            raise BadInput(f"--eval-tasks: {unknown!r} is not among the tasks built ({', '.join(slugs)})")
        return set(eval_tasks)
    k = round((DEFAULT_EVAL_SHARE if share is None else share) * len(usable))
    return set(random.Random(f"{seed}:predict-split").sample(sorted(usable), k))


@dataclass
class TaskCalls:
    """What a task's items ask: (check, call, rule) in order, and what the calls need."""

    calls: list[tuple[str, str, Comparison]]
    includes: list[str] = field(default_factory=list)
    prelude: str = ""
    from_cases: bool = False


def task_calls(task: Task) -> TaskCalls:
    """The verifier's checks when the task has a verifier.toml, else the calls its language
    offers (C++: its test cases; Python: the calls its tests make)."""
    language = language_for(task)
    spec = load_spec(task)
    if spec is not None:
        prelude = spec.prelude if spec.prelude is not None else language.default_prelude(task)
        return TaskCalls([(c.name, call, _in_terms(rule_for(c), task)) for c in spec.checks for call in c.calls], spec.includes,
                         prelude)
    offered = language.item_calls(task)
    rule = _in_terms(PREDICTION_RULE, task)
    return TaskCalls([(check, call, rule) for check, call in offered.calls], prelude=offered.prelude,
                     from_cases=offered.from_cases)


# --- versions of the code ------------------------------------------------------------------


@dataclass
class _Code:
    files: dict[str, bytes]
    sources: list[Provenance]


@dataclass
class _Unit:
    """One task's work: its calls and every version of its code."""

    suite: str
    task: Task
    asked: TaskCalls
    split: str
    codes: list[_Code] = field(default_factory=list)
    items: list[PredictItem] = field(default_factory=list)
    dropped: Counter = field(default_factory=Counter)

    @property
    def task_id(self) -> str:
        return f"{self.suite}/{self.task.slug}"


def _answers(suite: Suite, refs: list[str], runs_dir: Path, dropped: Counter) -> dict[str, list[_Code]]:
    """Every round's workspace of every finished trial of the runs, by task slug."""
    known = {t.slug: t for t in suite.tasks}
    out: dict[str, list[_Code]] = {}
    for ref in refs:
        folder = open_run(ref, runs_dir)
        manifest = folder.read_manifest()
        if manifest.suite != suite.name:
            raise BadInput(f"--from {ref}: run {manifest.run_id} ran suite {manifest.suite!r}, not {suite.name!r}")
        for cfg in manifest.configs:
            for slug in manifest.tasks:
                task = known.get(slug)
                for trial in range(1, manifest.trials + 1):
                    result = folder.read_result(cfg.name, slug, trial)
                    if result is None or task is None:
                        continue
                    if result.task_hash != task.content_hash:
                        dropped["answer to a task that has changed since"] += len(result.rounds)
                        continue
                    for rnd in result.rounds:
                        workspace = folder.trial_dir(cfg.name, slug, trial) / f"round-{rnd.round}" / "workspace"
                        if not workspace.is_dir():
                            continue
                        files = starting_code(task, workspace)
                        if files == task.stub_files():
                            continue  # the model wrote nothing: the stub is not its answer
                        out.setdefault(slug, []).append(_Code(files, [Provenance(
                            task=f"{suite.name}/{slug}", source="answer", run_id=manifest.run_id, config=cfg.name,
                            trial=trial, round=rnd.round)]))
    return out


def _observe(unit: _Unit, code: _Code, code_hash: str, session: SandboxSession) -> bool:
    """Items of one version of the code; False when it does not compile."""
    task, spec = unit.task, unit.asked
    obs = language_for(task).observe_calls(task, code.files, [call for _, call, _ in spec.calls], session,
                                           includes=spec.includes, prelude=spec.prelude, runs=2)
    if obs.status == "compile_error":
        unit.dropped["code that does not compile"] += 1
        return False
    first = obs.runs[0] if obs.runs else [None] * len(spec.calls)
    second = obs.runs[1] if len(obs.runs) > 1 else [None] * len(spec.calls)
    shown = {f: data.decode("utf-8", errors="replace") for f, data in sorted(code.files.items())
             if f in task.solution_files}
    for (check, call, rule), a, b in zip(spec.calls, first, second):
        if a is None:
            unit.dropped["test case not reached, or its records not values (an operand the probe cannot write, a FAIL)"
                         if spec.from_cases else "call not reached (the program stopped first)"] += 1
        elif len(a.get("o", [])) > MAX_OBSERVATIONS:
            unit.dropped[f"more than {MAX_OBSERVATIONS} observations (a test case's loop)"] += 1
        elif len(obs.runs) < 2:
            unit.dropped["call observed once (the first run crashed or timed out)"] += 1
        elif b is None or not call_matches(a, b, rule):
            # A value that changes between runs (or that one run never reached) is no truth to predict.
            unit.dropped["call not repeatable (a different value, or none, on the second run)"] += 1
        else:
            try:
                answer = render_answer(a, rule.answer)
            except ValueError:
                unit.dropped["a value an answer cannot write (an object, a class, a range, a digest)"] += 1
                continue
            unit.items.append(PredictItem(
                id=item_id(code_hash, call), task=unit.task_id, split=unit.split, check=check, call=call,
                prelude=spec.prelude, files=shown, code_hash=code_hash, expected=a, answer=answer,
                compare=rule, sources=list(code.sources)))
    return True


def _work(unit: _Unit, mutants: int, seed: int, progress: ProgressFn | None) -> Callable[[SandboxSession], None]:
    keep = interface(unit.task)
    language = language_for(unit.task)

    def run(session: SandboxSession) -> None:
        seen: dict[str, _Code] = {}
        order: list[tuple[str, _Code]] = []
        for code in unit.codes:
            h = normalized_hash(language, code.files, keep)
            if h in seen:
                seen[h].sources.extend(code.sources)
                unit.dropped["duplicate code (same normal form)"] += 1
                continue
            seen[h] = code
            order.append((h, code))
        for i, (h, code) in enumerate(order):
            compiled = _observe(unit, code, h, session)
            if i == 0 and not compiled:
                raise BadInput(f"{unit.task_id}: the reference solution does not build with the probe driver")
            if progress is not None:
                progress(unit.task.slug)
        reference = unit.task.reference_files()
        built = 0
        # A few mutants, in the seeded screening order; a mutant is worth an item only when it
        # builds, so more are drawn than kept (at most four times as many).
        for m in screening_order(unit.task, seed)[:4 * mutants + 4]:
            if built >= mutants:
                break
            files = m.apply(reference)
            h = normalized_hash(language, files, keep)
            if h in seen:
                continue
            code = _Code(files, [Provenance(task=unit.task_id, source="mutant", name=m.label)])
            seen[h] = code
            built += _observe(unit, code, h, session)
            if progress is not None:
                progress(unit.task.slug)

    return run


# --- the build -----------------------------------------------------------------------------


@dataclass
class Built:
    path: Path
    manifest: PredictManifest
    items: list[PredictItem]


def plan(config: PredictBuildConfig) -> tuple[Suite, list[_Unit], dict[str, str], Counter]:
    """Everything decided before any sandbox work: bad input surfaces here."""
    suite = find_suite(config.suite)
    tasks = suite.select(config.tasks)
    specs = {t.slug: task_calls(t) for t in tasks}
    slugs = [t.slug for t in tasks]
    eval_set = split_tasks(slugs, [s for s in slugs if specs[s].calls], config.eval_tasks, config.eval_share,
                           config.seed)
    dest = config.out_root() / config.out
    if dest.exists() and not config.replace:
        raise BadInput(f"{dest}: a set named {config.out!r} exists already (use --replace to overwrite it)")
    dropped: Counter = Counter()
    answers = _answers(suite, config.runs, config.runs_dir, dropped)
    skipped: dict[str, str] = {}
    units = []
    for task in tasks:
        spec = specs[task.slug]
        if not spec.calls:
            skipped[task.slug] = "no verifier checks, and no test case or call of its tests to take: no calls to observe"
            continue
        unit = _Unit(suite.name, task, spec, "eval" if task.slug in eval_set else "train")
        tid = unit.task_id
        unit.codes.append(_Code(task.reference_files(), [Provenance(task=tid, source="reference")]))
        for name, files in faulty_controls(task).items():
            unit.codes.append(_Code(files, [Provenance(task=tid, source="faulty", name=name)]))
        unit.codes.extend(answers.get(task.slug, []))
        units.append(unit)
    return suite, units, skipped, dropped


def build(config: PredictBuildConfig, *, sandbox: Sandbox | None = None, progress: ProgressFn | None = None,
          notice: Callable[[str], None] | None = None) -> Built:
    suite, units, skipped, dropped = plan(config)
    if not units:
        raise BadInput(f"suite {suite.name}: none of the tasks has verifier checks or test cases to take calls from")
    box = sandbox or make_sandbox(config.sandbox, SandboxLimits(timeout_s=config.run_timeout_s), notice=notice)
    work = {id(u): _work(u, config.mutants, config.seed, progress) for u in units}
    workers = max(1, min(config.workers or os.cpu_count() or 1, len(units)))
    # One unit per task: a session keeps the task's probe tree, so each later version of
    # the code recompiles only its own sources.
    work_in_sessions(box, units, lambda u, s: work[id(u)](s), workers=workers, label="predict build")
    items: list[PredictItem] = []
    for unit in units:
        dropped.update(unit.dropped)
        items.extend(unit.items)
        if not unit.items:
            skipped[unit.task.slug] = "no call gave a repeatable value"
    return write_set(config.out_root() / config.out, config.out, suite, items, dropped, skipped,
                     eval_tasks=sorted(u.task_id for u in units if u.split == "eval"))


class SetSource(Protocol):
    """What a set's items came from: a suite, or an imported file of problems (its name, its
    content hash) with the image its tasks name."""

    @property
    def name(self) -> str: ...

    @property
    def content_hash(self) -> str: ...

    @property
    def image(self) -> str: ...


def write_set(dest: Path, name: str, source: SetSource, items: list[PredictItem], dropped: Counter,
              skipped: dict[str, str], *, eval_tasks: list[str]) -> Built:
    # Items are unique by id (normalised code + call); the unit de-duplicated code already,
    # and this keeps the rule true whatever the sources were.
    unique: dict[str, PredictItem] = {}
    for item in items:
        if item.id in unique:
            unique[item.id].sources.extend(item.sources)
            dropped["duplicate item (same normalised code and call)"] += 1
        else:
            unique[item.id] = item
    items = sorted(unique.values(), key=lambda i: (i.task, i.check, i.call, i.id))
    lines = "".join(i.model_dump_json() + "\n" for i in items).encode()
    by_source = Counter(kind for i in items for kind in {p.source for p in i.sources})
    manifest = PredictManifest(
        name=name, suite=source.name, suite_hash=source.content_hash, created=utc_now(), format_version=FORMAT_VERSION,
        content_hash=sha256_bytes(lines), source_tasks=sorted({i.task for i in items if i.split == "train"}),
        eval_tasks=eval_tasks, items={s: sum(1 for i in items if i.split == s) for s in ("train", "eval")},
        by_source={k: by_source[k] for k in SOURCE_KINDS}, dropped=dict(sorted(dropped.items())),
        skipped_tasks=dict(sorted(skipped.items())))

    def rows(split: str) -> tuple[bytes, bytes]:
        sft, grpo = [], []
        for i in (i for i in items if i.split == split):
            prompt = item_messages(i)
            sft.append(SftRow(task_id=f"{name}/{i.id}", source_task=i.task, messages=[*prompt, answer_message(i.answer)]))
            grpo.append(PredictGrpoRow(item_id=i.id, source_task=i.task, format_version=FORMAT_VERSION, prompt=prompt,
                                       call=i.call, expected=i.expected, answer=i.answer, compare=i.compare))
        return ("".join(r.model_dump_json() + "\n" for r in sft).encode(),
                "".join(r.model_dump_json() + "\n" for r in grpo).encode())

    train_sft, train_grpo = rows("train")
    eval_sft, eval_grpo = rows("eval")
    with written_folder(dest) as folder:
        languages = {write_task(folder / item.id, item) for item in items}
        (folder / SUITE_MANIFEST).write_text(render_manifest(SuiteManifest(
            name=name, version=f"answer format {FORMAT_VERSION}", language=languages.pop() if languages else "cpp",
            image=source.image, description=f"output prediction: {len(items)} items from {source.name}",
            tasks=[i.id for i in items])))
        atomic_write(folder / ITEMS_FILE, lines)
        atomic_write(folder / SFT_FILE, train_sft)
        atomic_write(folder / GRPO_FILE, train_grpo)
        atomic_write(folder / EVAL_SFT_FILE, eval_sft)
        atomic_write(folder / EVAL_GRPO_FILE, eval_grpo)
        write_record(folder / MANIFEST_FILE, manifest)
    return Built(path=dest, manifest=manifest, items=items)


ANSWER_FILE = "prediction.txt"
ITEM_FILE = ".meta/item.json"


def write_task(folder: Path, item: PredictItem) -> str:
    """One item as an output-prediction task folder; its language's name."""
    layout = language_of(tuple(item.files), item.id)
    if layout is None:  # an item's code is always of a language it was built from
        raise no_language(tuple(item.files), item.id)
    config = {"kind": "output-prediction", "language": layout.name,
              "files": {"solution": [ANSWER_FILE], "test": [], "example": [".meta/example.txt"]}}
    prompt = item_messages(item)
    for sub in (".meta", ".docs"):
        (folder / sub).mkdir(parents=True, exist_ok=True)
    atomic_write(folder / ".meta" / "config.json", json.dumps(config, indent=2).encode())
    atomic_write(folder / ".meta" / "example.txt", (item.answer + "\n").encode())
    atomic_write(folder / ITEM_FILE, item.model_dump_json(indent=2).encode())
    atomic_write(folder / ".docs" / "instructions.md", (prompt[-1].content + "\n").encode())
    atomic_write(folder / ANSWER_FILE, b"")
    return layout.name


def read_items(folder: Path) -> list[PredictItem]:
    """The items of a set, from its tasks in suite order."""
    if not (folder / SUITE_MANIFEST).is_file():
        raise BadInput(f"{folder}: no {SUITE_MANIFEST}; a set built before sets were suites: build it again")
    return [PredictItem.model_validate_json((folder / slug / ITEM_FILE).read_bytes()) for slug in read_manifest(folder).tasks]
