"""The training files every wing writes and training reads: the rows of a curriculum's
`sft.jsonl` and `grpo.jsonl` (the curriculum builder, test writing's and prediction's
exports write exactly these models) and where a curriculum is found by name. Ground floor:
the wings that write them do not import training (harness/train/data.py reads them).

sft.jsonl, one `SftRow` per line: a conversation whose last message is the assistant's
answer (the reference as whole files in the agent's edit format); loss is taken on that
message only, through the base model's chat template.

grpo.jsonl, one `GrpoRow` per line: the conversation up to the model's turn, and the repair
task (a folder, relative to the JSONL file) whose verifier scores the sampled answers.

A curriculum folder holds both files and `manifest.json`, of which training reads
`content_hash` and `source_tasks` (the suite task IDs, e.g. `fixed26/phone-number`)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Annotated, Final, Literal, Union

from pydantic import Field, field_validator

from .paths import state_dir
from .records import Record

SFT_FILE, GRPO_FILE, MANIFEST_FILE = "sft.jsonl", "grpo.jsonl", "manifest.json"
ROW_SCHEMA_VERSION: Final = 1


class ChatMessage(Record):
    role: Literal["system", "user", "assistant"]
    content: str


class CorrectedValues(Record):
    """Where a corrected-value row came from: a suite the model wrote in a test-writing
    run, with its wrong expected values replaced by executed ones (testwriting/corrected.py)."""

    source: Literal["corrected-values"] = "corrected-values"
    run: str
    config: str
    trial: int
    round: int
    replaced: int = Field(description="wrong expected values replaced")
    comparisons: int = Field(description="equality assertions compared on the correct solution")
    kill_rate: float | None = Field(description="the corrected suite's, scored as a run scores its suites")


class TeacherSuite(Record):
    """Where a teacher's row came from: a line of a teacher model's JSONL, kept by the
    harness's own metric (testwriting/teacher.py)."""

    source: Literal["teacher"] = "teacher"
    file: str
    file_sha256: str
    line: int
    kill_rate: float | None
    assertion_accuracy: float | None = None


class TracedSuite(Record):
    """Where a trace-scratchpad row came from: a valid suite of a test-writing run with the
    correct solution's run of each assertion's call written above it (testwriting/traces.py)."""

    source: Literal["traced"] = "traced"
    run: str
    config: str
    trial: int
    round: int
    traces: int = Field(description="assertions with a trace above them")
    kill_rate: float | None


class TraceExplanation(Record):
    """Where an explanation row came from: a model's account of a prediction item's traced
    run, kept because its answer was right (predict/explain.py)."""

    source: Literal["trace-explanation"] = "trace-explanation"
    item: str = Field(description="the prediction item's id")
    model: str = Field(description="the model that explained the trace")
    events: int = Field(description="line events of the trace it was shown")
    cut: bool = Field(description="the trace was cut at the limits")


class RunSuite(Record):
    """Where a row's suite came from as the model wrote it: a round of a test-writing run."""

    source: Literal["run"] = "run"
    run: str
    config: str
    trial: int
    round: int
    valid: bool
    kill_rate: float | None


Provenance = Annotated[Union[RunSuite, CorrectedValues, TeacherSuite, TracedSuite, TraceExplanation],
                       Field(discriminator="source")]


class SftRow(Record):
    schema_version: Literal[1] = ROW_SCHEMA_VERSION
    task_id: str = Field(description="the repair task, <curriculum>/<slug>")
    source_task: str = Field(description="the suite task it was made from, <suite>/<slug>")
    messages: list[ChatMessage] = Field(min_length=2)
    provenance: Provenance | None = None  # where a row not made from a reference came from

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


# Searched in order for a curriculum given by name.
def curriculum_roots() -> list[Path]:
    return [Path.cwd() / "curricula", state_dir() / "curricula"]



def write_jsonl(path: Path, rows: Sequence[Record]) -> Path:
    """Rows as the files above expect them, one JSON object per line."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(r.model_dump_json() + "\n" for r in rows))
    return path
