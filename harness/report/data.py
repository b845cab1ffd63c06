"""What each report computes, as typed records: a document's `data` is its result's dump
(`model_dump(mode="json")`), so the numbers a JSON reader gets have a schema
(`harness schema compare-data`, ...). The flat rows are also the CSV's: a row's optional
fields are written only where its builder gave them, as the columns always were."""

from __future__ import annotations

import math
from typing import Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, WithJsonSchema, model_serializer
from pydantic_core.core_schema import SerializerFunctionWrapHandler

from .. import stats
from ..accounting import Accounting
from ..bar import BarCheck
from ..outcomes import ConfigInfo
from ..predict.rlef_report import RlefFigures
from ..records import RunRegistration

# A statistic that has no value when nothing was counted: NaN in memory, null in the JSON
# written (to_json.py); read back from JSON, null is NaN again.
Real = Annotated[float, BeforeValidator(lambda v: math.nan if v is None else v),
                 WithJsonSchema({"anyOf": [{"type": "number"}, {"type": "null"}]})]


class Data(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Row(Data):
    """A flat row (CSV and JSON): the fields its builder did not give are left out."""

    # No return annotation: pydantic then keeps the model's own schema for what is written.
    @model_serializer(mode="wrap")
    def _given(self, handler: SerializerFunctionWrapHandler):
        return {k: v for k, v in handler(self).items() if k in self.model_fields_set}


class IntervalData(Data):
    """What a JSON reader needs to use the intervals: their target, in words, and whether
    they are valid (not for a selected cohort)."""

    target: stats.Target
    about: str
    method: str
    confidence: float
    resamples: int
    seed: int
    valid: bool


class CohortData(Data):
    note: str
    ranked_by_round: Literal[1, 2]
    inflation: dict[str, float]          # per config: how much the selection raised its mean


class Transition(Data):
    """A config's finished trials by round 1 against the submitted round."""

    feedback: str
    finished_trials: int
    both_pass: int
    fixed: int
    broken: int
    both_fail: int
    recovered: int
    round1_failures: int


class SummaryRow(Row):
    """One config over one scope of tasks; in `harness report` its all-tasks row also
    carries its transitions (whose `recovered` is the submitted round's)."""

    config: str
    tasks_in: str
    tasks: int
    trials: int
    round1_mean: Real
    round1_percent: Real
    round1_low: Real
    round1_high: Real
    round2_tasks: int
    round2_mean: Real
    round2_percent: Real
    round2_low: Real
    round2_high: Real
    recovered: int | None
    first_round_failures: int | None
    interval_target: stats.Target
    interval_valid: bool
    feedback: str | None = None
    finished_trials: int | None = None
    both_pass: int | None = None
    fixed: int | None = None
    broken: int | None = None
    both_fail: int | None = None
    round1_failures: int | None = None


class PredictionRow(Data):
    """Prediction runs' accuracy in one group (a source kind or a task)."""

    config: str
    group: str
    items: int
    trials: int
    correct: int
    accuracy: float
    accuracy_low: float
    accuracy_high: float


class PassAtKData(Data):
    value: Real          # null when no task has k trials
    tasks: int           # the tasks it averages over


class Health(Data):
    trials: int
    finished: int
    partial: int
    infra_errors: int
    missing: int
    malformed_responses: int
    exhausted_context_windows: int
    timeouts: int
    tokens_per_trial: float | None
    cost_per_trial: float | None


class AiderSummaryRow(Data):
    """What Aider's benchmark summary prints, with its rounding (hence the strings)."""

    config: str
    trial: int | None        # None: every trial of the config together
    language: str | None = None  # None: every language of the run together
    test_cases: int
    pass_rate_1: str
    pass_rate_2: str
    pass_num_1: int
    pass_num_2: int
    percent_cases_well_formed: str
    error_outputs: int
    num_malformed_responses: int
    num_with_malformed_responses: int
    user_asks: int
    lazy_comments: int
    exhausted_context_windows: int
    prompt_tokens: int
    completion_tokens: int
    test_timeouts: int
    seconds_per_case: str
    total_cost: str


class MetricSummaryRow(Data):
    """A written suites' metric of one config, scope and round (report/metrics.py)."""

    config: str
    metric: str
    round: int
    tasks: int
    values: int
    mean: Real
    interval: tuple[Real, Real]
    tasks_in: str
    interval_target: stats.Target
    interval_valid: bool
    embeds_reference_trials: int


class PairedRow(Data):
    """NEW minus BASE in mean tasks solved over one scope's shared tasks, one round."""

    round: int
    tasks: int
    base: Real
    new: Real
    difference: Real
    interval: tuple[Real, Real]
    p_value: Real
    p_value_valid: bool


class MetricDifferenceRow(PairedRow):
    metric: str


class SuiteTaskRow(Data):
    """One task's written-suite metrics for BASE and NEW in one round."""

    task: str
    round: int
    base_valid: float | None
    base_kill_rate: float | None
    base_assertion_accuracy: float | None
    new_valid: float | None
    new_kill_rate: float | None
    new_assertion_accuracy: float | None
    kill_rate_change: float | None


class TaskPowerData(Data):
    smallest_p: float
    reachable: bool
    trials_needed: int


class TaskChangeRow(Row):
    """One task of a comparison: its counts, and per round shown the change, p-values and
    label as `round<r>_<field>`; the plain fields are the asked round's (without --round,
    the last shown); `changed`: in any round shown. In the CSV's column order; None: the
    task has no change in that round."""

    task: str
    trained_on: bool
    base_round1_trials: int
    base_round1: int
    base_round2_trials: int
    base_round2: int
    new_round1_trials: int
    new_round1: int
    new_round2_trials: int
    new_round2: int
    round: Literal[1, 2] | None
    round1_change: float | None = None
    round1_p_value: float | None = None
    round1_p_holm: float | None = None
    round1_label: str | None = None
    round1_smallest_p: float | None = None
    round2_change: float | None = None
    round2_p_value: float | None = None
    round2_p_holm: float | None = None
    round2_label: str | None = None
    round2_smallest_p: float | None = None
    change: float | None = None
    p_value: float | None = None
    p_holm: float | None = None
    label: str | None = None
    smallest_p: float | None = None
    changed: bool


class ReportResult(Data):
    """`harness report`: per config, headline numbers, pass@k, states and agent health."""

    interval: IntervalData
    warnings: list[str]
    cohort: CohortData | None
    method: str
    summaries: list[SummaryRow | PredictionRow]     # the CSV's rows: summaries, then prediction accuracy
    pass_at_k: dict[str, dict[str, dict[int, PassAtKData]]]   # config -> "round1"/"round2" -> k
    transitions: dict[str, Transition]
    prediction_accuracy: list[PredictionRow]
    self_rlef: list[RlefFigures] = []   # Self-RLEF configs: public tests, turns (predict/rlef_report.py)
    states: dict[str, dict[str, int]]
    health: dict[str, Health]
    configs: dict[str, ConfigInfo]
    training_overlap: list[str] | None
    training_unknown: list[str]
    unseen_pool: list[str] | None
    # Of the unseen pool, the tasks written after every config's training cutoff (backed by
    # dates); and every task written after them (None: no cutoff split, report/scope.py).
    unseen_pool_backed: list[str] | None = None
    written_after_cutoff: list[str] | None = None
    suite_metrics: list[MetricSummaryRow] | None
    aider_summary: list[AiderSummaryRow] | None
    accounting: Accounting


class ComparisonResult(Data):
    """`harness compare`: NEW against BASE over their shared tasks."""

    base: str
    new: str
    round: Literal[1, 2] | None
    rounds_shown: list[int]
    interval: IntervalData
    warnings: list[str]
    cohort: CohortData | None
    verdict: Literal["PASS", "FAIL"] | None
    lead: list[str]
    summaries: list[SummaryRow]
    paired: dict[str, list[PairedRow]]
    task_power: TaskPowerData | None
    tasks: list[TaskChangeRow]
    configs: dict[str, ConfigInfo]
    training_overlap: list[str] | None
    training_unknown: list[str]
    transitions: dict[str, Transition]
    unseen_pool: list[str] | None
    # Of the unseen pool, the tasks written after every config's training cutoff (backed by
    # dates); and every task written after them (None: no cutoff split, report/scope.py).
    unseen_pool_backed: list[str] | None = None
    written_after_cutoff: list[str] | None = None
    suite_metrics: dict[str, list[MetricDifferenceRow]] | None
    suite_tasks: list[SuiteTaskRow] | None
    accounting: Accounting
    # The bar NEW's run recorded before its first trial, when it did (the verdict is its);
    # bar_post_hoc: a bar was given only at compare time.
    registered_bar: RunRegistration | None = None
    bar_post_hoc: bool = False


class Checkpoint(Data):
    """One evaluated iteration of a loop."""

    iteration: int
    checkpoint: str
    adapter: str | None
    parent: str | None
    eval_run: str | None
    curricula: list[dict[str, Any]]      # loop/lineage.CurriculumRef, as the lineage records it
    trained_on_tasks: list[str]
    bar: BarCheck | None


class CheckpointTaskRow(Data):
    """One task at one checkpoint."""

    task: str
    iteration: int
    checkpoint: str
    trials: int
    round1: int | None
    round2_trials: int
    round2: int | None
    seen_in_training: bool | None        # None: unknown, a training set is not fully known
    held_out: bool


class LineageResult(Data):
    """`harness report --lineage`: a loop's checkpoints in lineage order."""

    loop_id: str
    status: str
    stop_reason: str | None
    interval: IntervalData
    warnings: list[str]
    cohort: CohortData | None
    method: str
    checkpoints: list[Checkpoint]
    tasks: list[CheckpointTaskRow]
    summaries: list[SummaryRow]
    first_to_last: ComparisonResult | None
    seen_in_training: list[str]
    training_unknown: list[str]
    held_out: list[str]
    accounting: Accounting


class PowerPoint(Data):
    trials: int
    power: float


class PlanResult(Data):
    """`harness plan-trials`: the trials per task that detect the asked change."""

    baseline: str
    tasks: int
    effect: float
    round: Literal[1, 2]
    alpha: float
    power: float
    trials_needed: int | None
    points: list[PowerPoint]


# name -> (the file whose `data` it describes, its model): the JSON Schemas `harness schema`
# prints beside the records of runs.
REPORT_DATA: dict[str, tuple[str, type[BaseModel]]] = {
    "report-data": ("`data` of `harness report --format json` (reports/report-*.json)", ReportResult),
    "compare-data": ("`data` of `harness compare --format json` (reports/compare-*.json)", ComparisonResult),
    "lineage-data": ("`data` of `harness report --lineage --format json` (reports/lineage-*.json)", LineageResult),
    "plan-data": ("`data` of `harness plan-trials --format json` (reports/plan-*.json)", PlanResult),
}
