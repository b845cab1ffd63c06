"""Output-prediction items as records: one item is (code, call) -> the value the sandbox
observed, with where the code came from, and the set's manifest and export rows.

An item's identity is its code's normal form (curriculum/normalize.py: comments, layout and
the names of the code's own locals do not count) and its call: two sources that give the
same code for the same call are one item with both provenances, so nothing is counted or
trained on twice.

An item is asked of a call (an expression, a call sequence, a test case) or, with `stdin`,
of a whole program: the call is then the standard input it reads and the value what it
prints (predict/problems.py)."""

from __future__ import annotations

from typing import Annotated, Any, Literal, Union

from pydantic import Field

from ..hashing import sha256_json
from ..probe.compare import Comparison
from ..records import Record
from ..training_files import ChatMessage

ITEMS_FILE = "items.jsonl"
GRPO_FILE = "grpo-predict.jsonl"          # not grpo.jsonl: the repair trainer reads that name
EVAL_SFT_FILE = "eval-sft.jsonl"
EVAL_GRPO_FILE = "eval-grpo-predict.jsonl"

SourceKind = Literal["reference", "faulty", "mutant", "answer"]
Split = Literal["train", "eval"]
SOURCE_KINDS: tuple[SourceKind, ...] = ("reference", "faulty", "mutant", "answer")


class Provenance(Record):
    """Where one version of the code came from."""

    task: str = Field(description="<suite>/<slug>")
    source: SourceKind
    name: str | None = Field(None, description="the faulty control's folder or the mutant's label")
    run_id: str | None = None
    config: str | None = None
    trial: int | None = None
    round: int | None = None


class PythonAssertion(Record):
    """CruxEval's rule (predict/cruxeval.py): the answer completes `assert f(input) == ??`
    with a Python expression, which is evaluated in the sandbox (never in the harness's
    process) and is right when its value equals the expected one under Python's `==`,
    compared in the harness's process."""

    mode: Literal["python-assert"] = "python-assert"
    timeout_s: float = Field(3.0, gt=0, description="wall clock for evaluating one prediction (CruxEval's own)")


# How an item's answer is judged: values observed when the set was built and compared in the
# harness's process (Comparison), or an expression executed in the sandbox (PythonAssertion).
Rule = Annotated[Union[Comparison, PythonAssertion], Field(discriminator="mode")]


def item_id(code_hash: str, call: str) -> str:
    """The item's identity: normalised code and call."""
    return sha256_json({"code": code_hash, "call": call})[:20]


class PredictItem(Record):
    schema_version: Literal[1] = 1
    id: str
    task: str = Field(description="<suite>/<slug>")
    split: Split
    check: str = Field(description="the verifier check the call belongs to, or the test case it is")
    call: str
    prelude: str = ""
    files: dict[str, str] = Field(description="the solution files the value was observed on")
    code_hash: str = Field(description="hash of the files' normal form")
    expected: dict[str, Any] = Field(description="the probe's record of the call (harness/languages/cpp/probe/calls.py)")
    answer: str = Field(description="the expected answer in the stated format (predict/prompt.py)")
    compare: Rule
    sources: list[Provenance] = Field(min_length=1)
    stdin: bool = Field(False, exclude_if=lambda v: not v,
                        description="the call is the standard input the code, a whole program, reads")


class PredictManifest(Record):
    schema_version: Literal[1] = 1
    kind: Literal["output-prediction"] = "output-prediction"
    name: str
    suite: str
    suite_hash: str
    created: str
    format_version: int
    content_hash: str = Field(description="hash of items.jsonl")
    source_tasks: list[str] = Field(description="the train split's tasks: what training on this set has seen")
    eval_tasks: list[str]
    items: dict[str, int] = Field(description="items per split")
    by_source: dict[str, int] = Field(description="items per source kind (an item with several kinds counts in each)")
    dropped: dict[str, int] = Field(description="versions of code or calls left out, per reason")
    skipped_tasks: dict[str, str] = Field(default_factory=dict, description="tasks with no items, and why")
    benchmark: str | None = Field(None, description="the published benchmark the set was read from (cruxeval-o)")
    source: str | None = Field(None, description="where a benchmark's data was read (never copied here but as items)")


class PredictGrpoRow(Record):
    """A GRPO prompt with what its reward compares against."""

    schema_version: Literal[1] = 1
    item_id: str
    source_task: str
    format_version: int
    prompt: list[ChatMessage] = Field(min_length=1)
    call: str
    expected: dict[str, Any]
    answer: str
    compare: Comparison
