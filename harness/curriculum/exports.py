"""Writing a curriculum: each kept candidate as a repair task (an Exercism-layout folder the
runner, the sandbox and the verifier take as they take any task), the folder as a suite,
and the training exports: `sft.jsonl` (the repair prompt, then the reference as whole
files in the agent's edit format) and `grpo.jsonl` (the prompt and the repair task's
folder, which the verifier builds), in harness.training_files' row models.

A repair task is its suite task's folder with: the starting code as its solution files,
instructions that add the failure and what to fix (the exercise's text in
.docs/instructions.md, the prompt contract's feedback text in instructions.append.md),
mutant controls under .meta/faulty/, and .meta/repair.json. Everything else is the suite
task's as it is: its test files, and its .meta (config.json, the reference, a verifier's
calls), which the verifier judges a GRPO candidate by. Its files keep the suite task's
names under the repair task's folder name, so tests and imports stay as they are; a C++
task's CMake target takes the folder's name (the build runs `<folder>/<folder>`)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Sequence

import tomli_w

from ..contract import PromptContract
from ..agents.editformat import render_whole
from ..errors import BadInput
from ..fs import read_files, written_folder
from ..hashing import hash_files
from ..languages.registry import language_for
from ..task import Task, load_task
from ..training_files import GRPO_FILE, SFT_FILE, ChatMessage, GrpoRow, SftRow, write_jsonl
from .candidates import Candidate
from .records import CANDIDATES_FILE, MANIFEST_FILE, REPAIR_RECORD, CurriculumManifest, RepairRecord

_NOT_COPIED = (".docs", ".git", ".exercism")


def repair_slug(c: Candidate) -> str:
    assert c.normalized_hash is not None  # a kept candidate was described
    return f"{c.slug}-{c.normalized_hash[:8]}"


def check_layout(task: Task) -> None:
    """Refuse, before any work, a task whose repair tasks could not be written."""
    language_for(task).relocated_build_files(task)


def exercise_text(task: Task) -> str:
    """The exercise's own instructions, without any failure: a repair task keeps them in
    its instructions.md and its failure in instructions.append.md."""
    if (task.path / REPAIR_RECORD).is_file():
        return task.read_text(".docs/instructions.md").strip()
    return task.instructions().strip()


def control_names(c: Candidate) -> list[str]:
    """The .meta/faulty folder of each mutant control. A label names a place and an
    operator, and two mutants may share both (a constant shifted up and down)."""
    return [f"mutant-{i}-{m.label}" for i, m in enumerate(c.controls, 1)]


def write_repair_task(dest: Path, c: Candidate, record: RepairRecord, contract: PromptContract) -> Task:
    source = c.live_task
    assert c.expected is not None  # a kept candidate was described
    shutil.copytree(source.path, dest, symlinks=True,  # a link is never read (fs.py): nor copied as a file
                    ignore=lambda d, names: [n for n in names if n in _NOT_COPIED or
                                             (Path(d) == source.path / ".meta" and n == "faulty")])
    for rel, data in language_for(source).relocated_build_files(source).items():
        (dest / rel).write_bytes(data)
    for rel, data in c.files.items():
        (dest / rel).write_bytes(data)
    (dest / ".docs").mkdir()
    (dest / ".docs" / "instructions.md").write_text(exercise_text(source) + "\n")
    (dest / ".docs" / "instructions.append.md").write_text(contract.feedback_message(source, c.expected).strip() + "\n")
    for name, m in zip(control_names(c), c.controls):
        folder = dest / ".meta" / "faulty" / name
        folder.mkdir(parents=True)
        (folder / m.file).parent.mkdir(parents=True, exist_ok=True)
        (folder / m.file).write_bytes(m.apply(source.reference_files())[m.file])
    (dest / REPAIR_RECORD).write_text(record.model_dump_json(indent=2) + "\n")
    return load_task(dest)


def training_prompt(task: Task, contract: PromptContract) -> list[ChatMessage]:
    """What a model is asked: the contract's system text and first message for the repair
    task, then its starting code as whole-file listings."""
    return [ChatMessage(**m) for m in contract.completion_prompt(task, task.stub_files())]


def content_hash(folder: Path) -> str:
    """Every file of the curriculum except the manifest and the candidates' log."""
    return hash_files({rel: data for rel, data in read_files(folder).items() if rel not in (MANIFEST_FILE, CANDIDATES_FILE)})


def write_curriculum(root: Path, name: str, language: str, image: str, kept: Sequence[Candidate],
                     records: Sequence[RepairRecord],
                     all_candidates: Sequence[Candidate], contract: PromptContract, manifest: CurriculumManifest,
                     replace: bool) -> Path:
    """Write the curriculum into a staging folder beside its final place, then move it
    there: a reader never sees half of one. Fills in the manifest's content hash."""
    dest = root / name
    if dest.exists() and not replace:
        raise BadInput(f"{dest}: a curriculum named {name!r} exists already (use --replace to overwrite it)")
    with written_folder(dest) as staging:
        sft, grpo = [], []
        for c, record in zip(kept, records):
            assert c.kept_as is not None  # named when it was kept
            task = write_repair_task(staging / c.kept_as, c, record, contract)
            prompt = training_prompt(task, contract)
            answer = render_whole({rel: data.decode() for rel, data in task.reference_files().items()})
            sft.append(SftRow(task_id=record.task_id, source_task=c.source_task,
                              messages=[*prompt, ChatMessage(role="assistant", content=answer)]))
            grpo.append(GrpoRow(task_id=record.task_id, source_task=c.source_task, task_path=c.kept_as, prompt=prompt))
        (staging / "suite.toml").write_text(
            "# A repair curriculum written by `harness curriculum` (manifest.json says from what).\n"
            # Built here: no model can have seen its tasks before (suite.toml `unseen`).
            + tomli_w.dumps({"name": name, "version": "1", "language": language, "image": image,
                             "description": f"repair curriculum {name}", "tasks": [c.kept_as for c in kept],
                             "unseen": True}))
        write_jsonl(staging / SFT_FILE, sft)
        write_jsonl(staging / GRPO_FILE, grpo)
        with open(staging / CANDIDATES_FILE, "w") as fh:
            for c in all_candidates:
                fh.write(c.record().model_dump_json() + "\n")
        manifest.content_hash = content_hash(staging)
        (staging / MANIFEST_FILE).write_text(manifest.model_dump_json(indent=2) + "\n")
    return dest


def read_manifest(folder: Path) -> CurriculumManifest:
    path = folder / MANIFEST_FILE
    try:
        return CurriculumManifest.model_validate_json(path.read_bytes())
    except OSError:
        raise BadInput(f"{path}: missing; not a curriculum folder") from None
    except ValueError as exc:
        raise BadInput(f"{path}: not a curriculum manifest ({str(exc).splitlines()[0]})") from None


def read_candidates(folder: Path) -> list[dict]:
    path = folder / CANDIDATES_FILE
    if not path.is_file():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
