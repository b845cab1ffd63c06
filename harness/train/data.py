"""The training data, as files: the rows of a curriculum's `sft.jsonl` and `grpo.jsonl`
(the curriculum builder writes exactly these models), how a curriculum is found, and what
an adapter trained on it records: the dataset hash and the suite task IDs it saw.

sft.jsonl, one `SftRow` per line: a conversation whose last message is the assistant's
answer (the reference as whole files in the agent's edit format); loss is taken on that
message only, through the base model's chat template.

grpo.jsonl, one `GrpoRow` per line: the conversation up to the model's turn, and the repair
task (a folder, relative to the JSONL file) whose verifier scores the sampled answers.

A curriculum folder holds both files and `manifest.json`, of which training reads
`content_hash` and `source_tasks` (the suite task IDs, e.g. `fixed26/phone-number`)."""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from ..errors import BadInput, invalid
from ..hashing import sha256_bytes, sha256_json
from ..paths import state_dir
from ..records import Record
from ..task import load_task

SFT_FILE, GRPO_FILE, MANIFEST_FILE = "sft.jsonl", "grpo.jsonl", "manifest.json"
ROW_SCHEMA_VERSION = 1


class ChatMessage(Record):
    role: Literal["system", "user", "assistant"]
    content: str


class SftRow(Record):
    schema_version: Literal[1] = ROW_SCHEMA_VERSION
    task_id: str = Field(description="the repair task, <curriculum>/<slug>")
    source_task: str = Field(description="the suite task it was made from, <suite>/<slug>")
    messages: list[ChatMessage] = Field(min_length=2)

    @field_validator("messages")
    @classmethod
    def _ends_with_answer(cls, messages: list[ChatMessage]) -> list[ChatMessage]:
        if messages[-1].role != "assistant":
            raise ValueError("the last message must be the assistant's answer")
        if not any(m.role == "user" for m in messages[:-1]):
            raise ValueError("no user message before the answer")
        return messages


class GrpoRow(Record):
    schema_version: Literal[1] = ROW_SCHEMA_VERSION
    task_id: str
    source_task: str
    task_path: str = Field(description="the repair task's folder, relative to the JSONL file")
    prompt: list[ChatMessage] = Field(min_length=1)

    @field_validator("prompt")
    @classmethod
    def _ends_with_user(cls, prompt: list[ChatMessage]) -> list[ChatMessage]:
        if prompt[-1].role != "user":
            raise ValueError("the prompt must end with a user message (the model answers next)")
        return prompt


class CurriculumManifestView(BaseModel):
    """The fields of a curriculum's manifest.json that training reads; the curriculum
    builder owns the rest."""

    model_config = ConfigDict(extra="ignore")

    content_hash: str
    source_tasks: list[str]


# Searched in order for a curriculum given by name.
def curriculum_roots() -> list[Path]:
    return [Path.cwd() / "curricula", state_dir() / "curricula"]


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


def sft_records(rows: list[SftRow]) -> list[dict]:
    """TRL's conversational prompt-completion form: the loss covers the completion only."""
    return [
        {"prompt": [m.model_dump() for m in r.messages[:-1]], "completion": [r.messages[-1].model_dump()]}
        for r in rows
    ]


def write_jsonl(path: Path, rows: list[Record]) -> Path:
    """Rows as the files above expect them, one JSON object per line."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(r.model_dump_json() + "\n" for r in rows))
    return path
