"""A teacher model's suites as SFT data: `harness tests import-teacher JSONL --suite S --out NAME`.

Each line of the teacher's file is a JSON object naming a task of the suite by slug and the
test file the teacher wrote for it, `{"task": "perfect-numbers", "suite": "..."}` (other
keys are ignored). Every suite is scored by the harness's own metric (score.py, the mutant
sample a run uses) and kept when it is valid, kills at least `min_kill` of its targets and
does not embed the reference (embedding.py). A kept suite becomes an SftRow, the prompt a
test-writing run asks with (the contract's first message, as export.py builds it) and the
suite as a whole-file answer, with its provenance (the teacher file, its hash, the line,
the score). A line that is not JSON, names no task or an unknown one, or whose suite is not
kept is listed with why, and the rest go on. The folder has the layout of a curriculum
(sft.jsonl and manifest.json), so `harness train sft --data NAME` finds it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Literal

import tomli_w
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ..contract import TESTS_CONTRACT, PromptContract, load_contract
from ..errors import BadInput
from ..executor.base import UnitFailure
from ..fs import written_atomically, written_folder
from ..hashing import hash_files, sha256_bytes
from ..records import Record
from ..sandbox.base import Sandbox
from ..suite import find_suite
from ..languages import layout_named
from ..task import Task
from ..training_files import MANIFEST_FILE, SFT_FILE, SftRow, TeacherSuite, write_jsonl
from .export import answer_for, prompt_for
from .written import test_file
from .score import SuiteToScore, score_suites


class TeacherLine(BaseModel):
    model_config = ConfigDict(extra="ignore")

    task: str = Field(min_length=1)
    suite: str = Field(min_length=1)


class LeftOut(Record):
    line: int
    task: str | None = None
    why: str


class TeacherImportManifest(Record):
    schema_version: Literal[1] = 1
    kind: Literal["teacher-import"] = "teacher-import"
    teacher_file: str
    file_sha256: str
    suite: str
    contract: str
    min_kill: float
    mutant_cap: int | None
    mutant_seed: int
    lines: int
    sft: int
    left_out: list[LeftOut]
    source_tasks: list[str]
    content_hash: str = ""


def _read(path: Path, suite: str) -> tuple[list[tuple[int, Task, str]], list[LeftOut]]:
    """The lines that name a task of the suite, with their test file; the others, with why."""
    try:
        lines = path.read_text().splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise BadInput(f"{path}: cannot read ({exc})") from None
    tasks = find_suite(suite)
    slugs = {t.slug for t in tasks.tasks}
    found, bad = [], []
    for n, text in enumerate(lines, 1):
        if not text.strip():
            continue
        try:
            row = TeacherLine.model_validate(json.loads(text))
        except json.JSONDecodeError as exc:
            bad.append(LeftOut(line=n, why=f"not JSON ({exc.msg})"))
            continue
        except ValidationError as exc:
            first = exc.errors()[0]
            bad.append(LeftOut(line=n, why=f"{'.'.join(map(str, first['loc'])) or 'the line'}: {first['msg']}"))
            continue
        if row.task not in slugs:
            bad.append(LeftOut(line=n, task=row.task, why=f"no task {row.task!r} in suite {suite}"))
            continue
        found.append((n, tasks.task(row.task), row.suite))
    return found, bad


def import_teacher(path: Path, suite: str, out: Path, *, sandbox: Sandbox, min_kill: float = 0.8,
                   mutant_cap: int | None = 30, mutant_seed: int = 0, contract: str = TESTS_CONTRACT,
                   workers: int = 1, replace: bool = False) -> TeacherImportManifest:
    if not 0 <= min_kill <= 1:
        raise BadInput("--min-kill must be in [0, 1]")
    if out.exists() and not replace:
        raise BadInput(f"{out}: exists already (use --replace to overwrite it)")
    path = Path(path)
    found, left_out = _read(path, suite)
    # The contract in the suite's language's own version (`tests` is `tests-python` there).
    asked = load_contract(layout_named(find_suite(suite).language, suite).contract(contract))
    lines = len(found) + len(left_out)
    file_hash = sha256_bytes(path.read_bytes())
    failures: dict[int, str] = {}

    def failed(index: int, failure: UnitFailure) -> None:
        failures[index] = f"could not be scored ({failure.record.kind}: {failure.record.message})"

    scored = score_suites(sandbox, [SuiteToScore(task, text.encode()) for _, task, text in found], workers=workers,
                          mutant_cap=mutant_cap, mutant_seed=mutant_seed, on_failure=failed)
    rows = []
    for i, ((n, task, text), score) in enumerate(zip(found, scored)):
        why = None
        if score is None:
            why = failures[i]
        elif not score.valid:
            why = f"not valid: {score.why_invalid}"
        elif score.embeds_reference:
            why = "embeds the reference"
        elif (score.kill_rate or 0.0) < min_kill:
            why = f"kill rate {score.kill_rate or 0.0:.2f} is below --min-kill {min_kill}"
        if why is not None or score is None:
            left_out.append(LeftOut(line=n, task=task.slug, why=why or failures.get(i, "not scored")))
            continue
        rows.append(SftRow(task_id=f"{out.name}/{task.slug}", source_task=f"{suite}/{task.slug}",
                           messages=[*prompt_for(task, asked), *answer_for(task, text)],
                           provenance=TeacherSuite(file=str(path.resolve()), file_sha256=file_hash, line=n,
                                                   kill_rate=score.kill_rate,
                                                   assertion_accuracy=score.assertion_accuracy)))
    manifest = TeacherImportManifest(
        teacher_file=str(path.resolve()), file_sha256=file_hash, suite=suite, contract=contract, min_kill=min_kill,
        mutant_cap=mutant_cap, mutant_seed=mutant_seed, lines=lines, sft=len(rows),
        left_out=sorted(left_out, key=lambda b: b.line), source_tasks=sorted({r.source_task for r in rows}))
    with written_folder(out) as staging:
        write_jsonl(staging / SFT_FILE, rows)
        manifest.content_hash = hash_files({SFT_FILE: (staging / SFT_FILE).read_bytes()})
        (staging / MANIFEST_FILE).write_text(manifest.model_dump_json(indent=2) + "\n")
    return manifest


def teacher_style_contract(path: Path, suite: str, examples: list[str], out: Path, *,
                           base: str = "tests-style", replace: bool = False) -> PromptContract:
    """The prompted control for a teacher's style (`harness tests style-contract`): the style
    contract of the suite's language with the teacher's own suites for the `examples` tasks
    (the first line of each) added to its system text, written to `out` as a contract file a
    run names with `--model MODEL::PATH`. Example tasks are the caller's to keep out of the
    evaluation: a suite shown for a task is its answer."""
    if not examples:
        raise BadInput("name at least one example task (--examples a,b)")
    if out.exists() and not replace:
        raise BadInput(f"{out}: exists already (use --replace to overwrite it)")
    found, _ = _read(Path(path), suite)
    first: dict[str, tuple[Task, str]] = {}
    for _, task, text in found:
        first.setdefault(task.slug, (task, text))
    missing = [e for e in examples if e not in first]
    if missing:
        raise BadInput(f"{path}: no suite for example task(s) {', '.join(missing)}")
    style = load_contract(layout_named(find_suite(suite).language, suite).contract(base))
    # Braces doubled: the system text is a template whose fields are the contract's.
    shown = "\n\n".join(f"{test_file(first[e][0])}, for the exercise {e}:\n```\n{first[e][1].strip()}\n```"
                        for e in examples).replace("{", "{{").replace("}", "}}")
    contract = style.model_copy(update={
        "name": out.stem, "version": "1",
        "description": f"{style.description} In the style of {Path(path).name}'s suites ({', '.join(examples)}).",
        "system": f"{style.system}\n\nSuites in the style to follow, written for other exercises:\n\n{shown}"})
    data = contract.model_dump(mode="json", exclude_defaults=True, exclude={"texts_file"})
    PromptContract.model_validate(data)  # its templates hold the contract's fields only, or it is not written
    with written_atomically(out) as staging:
        staging.write_text(tomli_w.dumps(data))
    return contract
