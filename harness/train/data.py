"""Training data as training reads it: a JSONL file or a curriculum folder found by name
(the rows' models are harness/training_files.py), and what an adapter trained on it records:
the dataset hash and the suite task IDs it saw."""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from pathlib import Path

from pydantic import BaseModel, ConfigDict, ValidationError

from ..errors import BadInput, invalid
from ..hashing import sha256_bytes, sha256_json
from ..records import Record
from ..training_files import GRPO_FILE, MANIFEST_FILE, SFT_FILE, GrpoRow, SftRow, curriculum_roots
from ..task import load_task
from ..testwriting.export import PREFERENCE_FILE, PreferenceRow

class CurriculumManifestView(BaseModel):
    """The fields of a curriculum's manifest.json that training reads; the curriculum
    builder owns the rest."""

    model_config = ConfigDict(extra="ignore")

    content_hash: str
    source_tasks: list[str]


@dataclass(frozen=True)
class DataSource:
    """Where a training set came from, and what an adapter trained on it records."""

    jsonl: Path
    dataset_hash: str
    trained_on_tasks: list[str]
    curriculum: Path | None  # the curriculum folder, when there is one


def find_data_file(ref: str, *filenames: str) -> Path:
    """A JSONL file, or the first of `filenames` in a curriculum folder or in the
    curriculum of that name."""
    path = Path(ref).expanduser()
    wanted = " or ".join(filenames)
    if path.is_file():
        return path
    if path.is_dir():
        for filename in filenames:
            if (path / filename).is_file():
                return path / filename
        raise BadInput(f"{path}: no {wanted} in this folder (export the curriculum first)")
    if not path.is_absolute() and len(path.parts) == 2 and path.suffix == ".jsonl":
        # NAME/FILE: a file of the curriculum of that name (`--curriculum tw1/preference.jsonl`)
        for root in curriculum_roots():
            if (root / path).is_file():
                return root / path
    if "/" not in ref and not ref.endswith(".jsonl"):
        for root in curriculum_roots():
            for filename in filenames:
                if (root / ref / filename).is_file():
                    return root / ref / filename
        places = ", ".join(str(r) for r in curriculum_roots())
        raise BadInput(f"no curriculum named {ref!r} with a {wanted} (looked in {places})")
    raise BadInput(f"{ref}: no such file or folder")


def read_rows(path: Path, model: type[Record]) -> list:
    rows = []
    try:
        lines = path.read_text().splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise BadInput(f"{path}: cannot read ({exc})") from None
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            rows.append(model.model_validate(json.loads(line)))
        except json.JSONDecodeError as exc:
            raise BadInput(f"{path}:{n}: not JSON ({exc.msg})") from None
        except ValidationError as exc:
            raise invalid(exc, f"{path}:{n}") from None
    if not rows:
        raise BadInput(f"{path}: no rows")
    return rows


def _manifest(folder: Path) -> CurriculumManifestView | None:
    path = folder / MANIFEST_FILE
    if not path.is_file():
        return None
    try:
        return CurriculumManifestView.model_validate_json(path.read_text())
    except ValidationError as exc:
        raise invalid(exc, str(path)) from None


def trained_on(folder: Path, rows: list) -> list[str]:
    """The manifest's source tasks and the rows' own: a file beside a manifest need not be
    the export it describes (an output-prediction set's eval rows sit beside its train rows)."""
    manifest = _manifest(folder)
    return sorted({r.source_task for r in rows} | set(manifest.source_tasks if manifest is not None else ()))


def load_rows(path: Path, model: type[Record]) -> tuple[list, DataSource]:
    """The rows of one JSONL file and their source, hashed as the file is."""
    path = path.resolve()
    rows = read_rows(path, model)
    folder = path.parent
    source = DataSource(
        jsonl=path,
        dataset_hash=sha256_bytes(path.read_bytes()),
        trained_on_tasks=trained_on(folder, rows),
        curriculum=folder if (folder / MANIFEST_FILE).is_file() else None,
    )
    return rows, source


def load_sft(ref: str) -> tuple[list[SftRow], DataSource]:
    return load_rows(find_data_file(ref, SFT_FILE), SftRow)


def load_grpo(ref: str) -> tuple[list[GrpoRow], DataSource, dict[str, Path]]:
    """The rows, their source, and each row's task folder (absolute) by task_path. Every
    task is loaded once here, so a bad task fails before any model is loaded. The dataset
    hash covers the rows and the content of every task the verifier builds."""
    rows, source = load_rows(find_data_file(ref, GRPO_FILE), GrpoRow)
    tasks: dict[str, Path] = {}
    hashes: dict[str, str] = {}
    for row in rows:
        if row.task_path not in tasks:
            task = load_task(source.jsonl.parent / row.task_path)
            tasks[row.task_path] = task.path
            hashes[row.task_path] = task.content_hash
    return rows, replace(source, dataset_hash=sha256_json({"rows": source.dataset_hash, "tasks": hashes})), tasks


def load_preference(ref: str) -> tuple[list[PreferenceRow], DataSource]:
    return load_rows(find_data_file(ref, PREFERENCE_FILE), PreferenceRow)


def preference_records(rows: list[PreferenceRow]) -> list[dict]:
    """TRL's conversational preference form: the prompt, then the chosen and the rejected
    answer, each a list of messages (the scores and names stay in the file)."""
    return [{"prompt": [m.model_dump() for m in r.prompt], "chosen": [m.model_dump() for m in r.chosen],
             "rejected": [m.model_dump() for m in r.rejected]} for r in rows]


def sft_records(rows: list[SftRow]) -> list[dict]:
    """TRL's conversational prompt-completion form: the loss covers the completion only."""
    return [
        {"prompt": [m.model_dump() for m in r.messages[:-1]], "completion": [r.messages[-1].model_dump()]}
        for r in rows
    ]
