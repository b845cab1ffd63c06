"""The curriculum's records on disk.

    curricula/<name>/suite.toml          the curriculum is a suite: its repair tasks, by folder
    curricula/<name>/<repair-task>/      an Exercism-layout task; .meta/repair.json is its RepairRecord
    curricula/<name>/sft.jsonl           harness.training_files.SftRow per line
    curricula/<name>/grpo.jsonl          harness.training_files.GrpoRow per line
    curricula/<name>/candidates.jsonl    CandidateRecord per line: every candidate and its fate
    curricula/<name>/manifest.json       CurriculumManifest, written last
"""

from __future__ import annotations

from enum import Enum
from typing import Annotated, Literal, Union

from pydantic import Field

from ..records import Record
from .taxonomy import FailureKind

REPAIR_RECORD = ".meta/repair.json"
MANIFEST_FILE = "manifest.json"
CANDIDATES_FILE = "candidates.jsonl"


class RunOrigin(Record):
    """A round of a trial whose tests failed."""

    type: Literal["run"] = "run"
    run_id: str
    config: str
    model: str
    task: str
    trial: int
    round: int
    test_report_hash: str  # harness.hashing.sha256_json of the round's TestReport as recorded


class MutantOrigin(Record):
    """A mutant of the suite task's reference solution: `original` at [start, end) of the
    file's text (character offsets) replaced; line and column are for people. The fields
    of harness.languages.mutation.Mutant, written out here so that the curriculum's schema on disk
    does not change when the generator's class does."""

    type: Literal["mutant"] = "mutant"
    operator: str
    file: str
    line: int
    column: int
    start: int
    end: int
    original: str
    replacement: str


Origin = Annotated[Union[RunOrigin, MutantOrigin], Field(discriminator="type")]


class RepairRecord(Record):
    """Where a repair task came from and what it was validated against."""

    schema_version: Literal[1] = 1
    task_id: str             # <curriculum>/<folder>
    source_task: str         # <suite>/<slug>
    source_task_hash: str
    kind: FailureKind
    detail: str              # the diagnostic line or failing tests the kind was read from
    normalized_hash: str     # of the starting code's normal form (near-duplicate key)
    origin: Origin
    expected_failing: list[str] = Field(default_factory=list)  # tests the starting code fails
    controls: list[str] = Field(default_factory=list)           # .meta/faulty/<name> folders
    contract: str
    contract_hash: str


class DropReason(str, Enum):
    held_out = "held-out"                    # a --hold-out task
    kind_not_selected = "kind-not-selected"  # outside --failure-kinds
    task_changed = "task-changed"            # the suite task differs from the one the run used
    no_snapshot = "no-snapshot"              # the round's workspace snapshot is missing
    unedited = "unedited"                    # the round's code is the task's stub: nothing to repair
    mutant_not_compiled = "mutant-not-compiled"
    mutant_survived = "mutant-survived"      # the mutant passes every test
    duplicate = "duplicate"                  # the normal form of a candidate kept before it
    reference_fails = "reference-fails"
    broken_passes = "broken-passes"          # the starting code passes every test now
    not_reproduced = "not-reproduced"        # the starting code fails, but not as recorded
    control_passes = "control-passes"        # a faulty control passes or does not build
    over_cap = "over-cap"                    # more than --max-per-task of its task and kind


class CandidateRecord(Record):
    """One failed round (or mutant) the builder considered, and what became of it."""

    schema_version: Literal[1] = 1
    source_task: str
    kind: FailureKind | None = None  # None when it was dropped before it was classified
    origin: Origin
    normalized_hash: str | None = None
    kept_as: str | None = None       # the repair task's folder
    dropped: DropReason | None = None
    why: str | None = None           # the validation's own words for a drop


class KindCount(Record):
    seen: int = 0  # classified candidates of this kind
    kept: int = 0


class CurriculumSummary(Record):
    candidates: int
    kept: int
    dropped: dict[DropReason, int]
    by_kind: dict[FailureKind, KindCount]
    by_task: dict[str, dict[FailureKind, KindCount]]
    sandbox_runs: int          # builds-and-tests the validation ran (cached repeats not counted)
    validation_seconds: float
    workers: int
    backend: str


class BuildOptions(Record):
    max_per_task: int
    failure_kinds: list[FailureKind] | None = None
    seed: int
    hold_out: list[str] = Field(default_factory=list)
    controls: int              # mutant controls per repair task
    mutants_per_task: int      # mutants screened per suite task


class RunSource(Record):
    run_id: str
    run_dir: str
    suite: str
    suite_hash: str


class ContractRef(Record):
    name: str
    version: str
    content_hash: str


class CurriculumManifest(Record):
    schema_version: Literal[1] = 1
    name: str
    made_from: Literal["runs", "synth"]
    created_at: str
    harness_version: str
    content_hash: str          # every file of the curriculum but this one and candidates.jsonl
    source_tasks: list[str]    # <suite>/<slug> of every suite task a repair task was made from
    repair_tasks: list[str]
    runs: list[RunSource] = Field(default_factory=list)
    suite: str | None = None   # synth: the suite whose references were mutated
    contract: ContractRef
    options: BuildOptions
    summary: CurriculumSummary
