"""Records written to disk or handed between stages. Every one carries a schema version so
a reader can refuse what it does not understand instead of misreading it."""

from __future__ import annotations

import datetime
from collections.abc import Sequence
from enum import Enum
from typing import Any, Literal, Protocol

from pydantic import BaseModel, ConfigDict, Field, field_validator

from .errors import InfraKind


class Record(BaseModel):
    model_config = ConfigDict(extra="forbid")


class _Passes(Protocol):
    @property
    def passed(self) -> bool: ...


class _Tested(Protocol):
    @property
    def test_report(self) -> _Passes | None: ...


def passes_after(rounds: Sequence[_Tested], round_no: int) -> bool:
    """The answer a trial stands by after `round_no` of its rounds passes: the last round up
    to then was tested and passed. Under real feedback a trial stops at its first pass, so
    this is success within `round_no` rounds; under simulated feedback a later round can
    break a pass. A trial's record and the facts a report reads of it (result_facts.py)
    answer alike."""
    last = rounds[:round_no][-1:]
    report = last[0].test_report if last else None
    return report is not None and report.passed


class Status(str, Enum):
    """The Exercism test-runner vocabulary: pass (all tests pass), fail (it built, some
    test failed), error (it did not build, or the run broke down as a whole)."""

    passed = "pass"
    failed = "fail"
    error = "error"


class TestCaseResult(Record):
    __test__ = False  # not a pytest class

    name: str
    status: Status
    tags: list[str] = Field(default_factory=list)
    message: str | None = None  # why it failed: the failed expression, the exception text
    output: str | None = None   # what the test printed, capped


class TestMain(str, Enum):
    """Which `main` the test binary was linked with: Catch2's implementation is most of a
    build's cost, so where it came from is most of what a round costs."""

    __test__ = False

    harness = "harness"  # the harness's precompiled main (our tasks' HARNESS_TEST_MAIN)
    catch2 = "catch2"    # the sandbox's precompiled Catch2WithMain, via the task's EXERCISM_TEST_SUITE branch
    task = "task"        # compiled from the task's own files (an upstream test/tests-main.cpp)


class AssertionCount(Record):
    """Assertions of one test run that held and that failed (an exception escaping an
    assertion counts as failed), as Catch2 totals them."""

    passed: int
    failed: int

    @property
    def total(self) -> int:
        return self.passed + self.failed


class TestReport(Record):
    """One build-and-test of one workspace against one task, in one sandbox."""

    __test__ = False

    schema_version: Literal[1, 2] = 2
    status: Status
    message: str | None = None  # compiler diagnostics (cleaned of sandbox paths) for error
    tests: list[TestCaseResult] = Field(default_factory=list)
    built: bool = False  # the test binary was built (whatever its tests then did)
    build_seconds: float = 0.0
    run_seconds: float = 0.0
    timeout: bool = False
    tampered: list[str] = Field(default_factory=list)  # protected files the workspace changed
    exit_code: int | None = None
    output: str | None = None  # the test binary's own stdout/stderr outside Catch2's capture
    output_truncated: bool = False
    backend: str = ""
    test_main: TestMain | None = None  # None in reports written before it was recorded
    # The test unit took Catch2 precompiled (harness/languages/cpp/catch_pch.py: only where that compiles
    # the same program as the Exercism build).
    catch_precompiled: bool = False
    # A run that did not pass, when asked for: the console output of the build and of the
    # test binary under Catch2's console reporter, uncut, sandbox paths written as the
    # exercise's own (`<slug>/...`, `<slug>/build/...`). What Aider's benchmark shows a model.
    transcript: str | None = None
    # Catch2's totals of the run, when its report was complete (None in older reports).
    assertions: AssertionCount | None = None
    # The judge caught the candidate reaching for the verdict instead of earning it (a
    # framework macro redefined, a forbidden symbol, a verdict stream that an honest
    # program could not have written): never a pass, whatever the tests said. `forgery`
    # holds one reason per finding, for the reader and the trainer.
    forged: bool = False
    forgery: list[str] = Field(default_factory=list)

    @property
    def passed(self) -> bool:
        return self.status is Status.passed and not self.forged

    def failing(self) -> list[TestCaseResult]:
        return [t for t in self.tests if t.status is not Status.passed]

    def overruled(self, reasons: list[str]) -> "TestReport":
        """This report as the judge rules it when it finds forgery: failed, with why."""
        if not reasons:
            return self
        return self.model_copy(update={"status": Status.failed, "forged": True,
                                       "forgery": [*self.forgery, *reasons]})


# What the message of a forged round names at most, of its reasons and of each: a file of
# thousands of refused words, or one refused name a megabyte long, would otherwise make a
# round-2 message of megabytes for the model. TestReport.forgery keeps every reason whole.
MAX_SHOWN = 20
MAX_REASON_CHARS = 300


def forged_message(reasons: Sequence[str]) -> str:
    """What the model is told of a round overruled before its tests ran, in every language:
    what it reached for, the first MAX_SHOWN reasons (each cut to MAX_REASON_CHARS), and
    how many more there are."""
    shown = [r if len(r) <= MAX_REASON_CHARS else r[:MAX_REASON_CHARS] + "..." for r in reasons[:MAX_SHOWN]]
    more = f"; and {len(reasons) - MAX_SHOWN} more" if len(reasons) > MAX_SHOWN else ""
    return "forged: " + "; ".join(shown) + more


def forged_report(reasons: list[str], *, transcript: bool, console: str | None = None, **fields: Any) -> TestReport:
    """A round overruled before its tests ran (a screen refused the solution, or the built
    binary reached for the verdict): failed, forged, with every reason in `forgery` and the
    bounded message (forged_message). Its transcript, where one is kept, is the message,
    after the build's `console` where the build printed one."""
    message = forged_message(reasons)
    shown = (message if console is None else f"{console}\n{message}\n") if transcript else None
    return TestReport(status=Status.failed, message=message, transcript=shown, forged=True, forgery=list(reasons), **fields)


# --- verdicts ---------------------------------------------------------------------------
# What the verifier (verify.py) says about one candidate: per-check outcomes, with the
# values the reference and the candidate produced, and a reward judged in the harness's
# process. Kept here so trial results can carry one.


class InfraFailure(Record):
    kind: str      # errors.InfraKind value, or "bad_input" for a unit of work that raised BadInput
    message: str
    attempts: int = 1


class ScreenFlag(Record):
    """Something in a candidate's source that no honest solution needs (languages/cpp/screen.py)."""

    rule: str
    why: str
    file: str
    line: int
    text: str


class VerdictStatus(str, Enum):
    ok = "ok"                        # the probe's stream is complete; the reward is what its values earn
    compile_error = "compile_error"
    timeout = "timeout"
    crash = "crash"                  # killed by a signal before the stream ended
    forged = "forged"                # a protected file changed, or a stream no honest program writes (languages/cpp/probe/stream.py)
    incomplete = "incomplete"        # the stream stopped early, or holds cases the task has not
    malformed = "malformed"          # the candidate names a file it may not write (file_names.py): not run
    # The harness could not judge it (`infra_error` says why: the sandbox, bad input about
    # the task, a bug of ours). Scored -1 like every status but ok, so that breaking the
    # judge never earns more than being judged.
    error = "error"


class CallOutcome(Record):
    """One call of a check, or one assertion of a test case: the value the reference
    produced and the candidate's, as the probe wrote them (harness/probe/compare.py)."""

    call: str
    expected: Any = None
    observed: Any = None  # None: the candidate's stream never got to it
    passed: bool


class CheckOutcome(Record):
    name: str
    group: str
    weight: float = 1.0
    passed: bool
    calls: list[CallOutcome] = Field(default_factory=list)


class Verdict(Record):
    """One candidate, verified. `reward` is -1 unless `status` is ok."""

    schema_version: Literal[2] = 2
    task: str
    task_hash: str
    candidate_hash: str
    status: VerdictStatus
    reward: float = Field(ge=-1.0, le=1.0)
    checks: list[CheckOutcome] = Field(default_factory=list)
    reason: str | None = None            # why the status is not ok
    flags: list[ScreenFlag] = Field(default_factory=list)
    tampered: list[str] = Field(default_factory=list)    # protected files the candidate changed
    build_log: str | None = None
    output: str | None = None            # the program's own stdout and stderr, for people
    exit_code: int | None = None
    build_seconds: float = 0.0
    run_seconds: float = 0.0
    backend: str = ""
    infra_error: InfraFailure | None = None  # status error: the failure, typed (kind "bad_input" for bad input)

    @property
    def checks_passed(self) -> int:
        return sum(c.passed for c in self.checks)


# --- runs -------------------------------------------------------------------------------
# runs/<run-id>/manifest.json, then runs/<run-id>/<config>/<task>/trial-<k>/ holding the
# trajectory, a workspace snapshot and test report per round, and result.json written last
# and atomically: its presence is what "this trial is done" means.


class Sampling(Record):
    temperature: float | None = None
    top_p: float | None = None
    max_tokens: int | None = None
    seed: int | None = None


class AgentCounters(Record):
    """Aider's own per-round counters, with the definitions its benchmark records them by;
    counters of ours that Aider does not keep, or keeps otherwise, have names of their own."""

    malformed_responses: int = 0
    empty_responses: int = 0      # ours: answers with no text at all (the round then edits nothing)
    exhausted_context_windows: int = 0
    # Aider's: lines matching its `# ... ` elision pattern in the round's final reply.
    lazy_comments: int = 0
    # Ours: elision lines written with `#` or `//`, in every reply of the round.
    lazy_comments_all_replies: int = 0
    user_asks: int = 0
    error_outputs: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost: float = 0.0


class RoundTimings(Record):
    model_seconds: float = 0.0   # waiting on the model endpoint
    agent_seconds: float = 0.0   # Aider's own work outside model calls
    test_seconds: float = 0.0    # build and test in the sandbox
    total_seconds: float = 0.0   # wall clock of the round


# --- simulated feedback ----------------------------------------------------------------
# Under `harness run --feedback simulated` the model predicts what its own code does on the
# task's public test cases (predict/feedback.py); the round after is decided by the
# prediction, while every round is still scored by the real tests. Under `self-rlef` the
# model decides itself, from its predictions (or, `self-rlef-exec`, the public tests' real
# outputs), whether to submit or fix (predict/rlef.py).

FeedbackMode = Literal["real", "simulated", "self-rlef", "self-rlef-exec"]

# The kinds of task a run's trials ask for (`--kind`), by the names of harness/kinds/'s
# registry: the name a run's manifest and a prompt contract record.
TrialKindName = Literal["repair", "tests"]


def _absent(value: Any) -> bool:
    """Fields added for simulated feedback are left out of files that do not use it, so a
    run with real feedback writes the bytes it wrote before they existed."""
    return value is None or value == "real"


class SimulatedCase(Record):
    name: str
    call: str = Field(description="the public test case asked about (languages/cpp/probe/cases.py)")
    expected: dict[str, Any] = Field(description="the reference's record of it")
    predicted: dict[str, Any] | None = Field(description="the model's prediction for its own code; None: not in the answer format")
    passed: bool = Field(description="predicted to pass: the prediction matches the reference's record "
                         "(with several attempts, by their aggregate)")
    attempts: list[dict[str, Any] | None] | None = Field(
        None, exclude_if=_absent, description="every attempt's prediction, when the judge was asked more than once")

    @property
    def failed(self) -> bool:
        """A predicted failure: a prediction that was read and differs from the reference."""
        return self.predicted is not None and not self.passed


class Simulation(Record):
    """The model's prediction of its own round's results on the public test cases."""

    cases: list[SimulatedCase] = Field(default_factory=list)

    @property
    def failures(self) -> list[SimulatedCase]:
        return [c for c in self.cases if c.failed]

    @property
    def unreadable(self) -> int:
        return sum(c.predicted is None for c in self.cases)


class RlefRound(Record):
    """A Self-RLEF round (predict/rlef.py): its code's results on the public tests, the
    outputs its decision was shown (predicted by the model, or under self-rlef-exec the real
    ones) and the model's decision after it (None: the round was the last, or its decision
    was not made yet)."""

    public: dict[str, bool] = Field(description="per public case, by name: the round's code passed it in the round's tests")
    shown: Simulation | None = Field(None, description="per public case: the expected output and the output the "
                                     "decision was shown beside it")
    decision: Literal["submit", "fix"] | None = None

    @property
    def public_passed(self) -> bool:
        return bool(self.public) and all(self.public.values())


class SuiteShape(Record):
    """What a written suite is made of, read from its text alone (the study's diagnostics: a
    validity gain that is only brevity, an assertion mix that drifts). Assertions are
    counted where they are written, each kind by its form: `equality` states an exact
    expected value, `exception` an error raised, `property` a relation that is not exact
    equality (an order, a membership, a type, a length), `other` only that a value is true;
    `constant` is those whose truth no run of the solution can change (`assert 1 == 1`)."""

    tests: int
    assertions: int
    equality: int = 0
    exception: int = 0
    property: int = 0
    other: int = 0
    constant: int = 0
    lines: int  # of code: not blank, not a comment


class RoundRecord(Record):
    round: int = Field(ge=1)
    counters: AgentCounters = Field(default_factory=AgentCounters)
    edited_files: list[str] = Field(default_factory=list)
    # Files in the workspace after the round that the task does not ship: the model made them.
    created_files: list[str] = Field(default_factory=list)
    test_report: TestReport | None = None  # None if the round ended in an infrastructure error
    timings: RoundTimings = Field(default_factory=RoundTimings)
    # Each kind's own facts of a round (harness/kinds/: its RoundFacts model), kept flat
    # under these names so that every run folder reads as it was written.
    # What the static screen found in the round's solution files: it never changes the
    # outcome, but a reader of the trial should see it.
    screen_flags: list[ScreenFlag] = Field(default_factory=list)
    # Simulated feedback: what the model predicted its round's code does on the public
    # tests, which decided whether another round followed.
    simulation: Simulation | None = Field(None, exclude_if=_absent)
    # Self-RLEF: the round's public tests, what its decision was shown, and the decision.
    self_rlef: RlefRound | None = Field(None, exclude_if=_absent)
    # A test-writing round's score (testwriting/score.py; None in a repair round): the
    # suite compiles and holds on the correct solution; the share of its assertions that
    # hold there; the share of the broken solutions it catches (a valid suite's only).
    valid: bool | None = None
    assertion_accuracy: float | None = None
    kill_rate: float | None = None
    # The suite holds a copy of the reference's code (testwriting/embedding.py): counted
    # apart in reports and comparisons, never a pass.
    embeds_reference: bool | None = Field(None, exclude_if=_absent)
    # What the suite is made of (tests, assertions and their kinds, length), where its
    # language reads it: the diagnostics a report shows beside the three metrics.
    suite_shape: SuiteShape | None = Field(None, exclude_if=_absent)


class ModelCall(Record):
    """One request to the model endpoint and what came back, as the agent made it."""

    # "edit" (the agent's turn), "summarize" (Aider's history summary) or "simulate" (a
    # Self-RLEF prediction, predict/rlef.py)
    purpose: str = "edit"
    started_at: str
    finished_at: str
    seconds: float
    request: list[dict] = Field(default_factory=list)  # the messages sent: {"role", "content"}
    response: str | None = None
    finish_reason: str | None = None
    prompt_tokens: int | None = None      # as the server reported them; None if it did not
    completion_tokens: int | None = None
    error_type: str | None = None         # set when the call failed (the provider's error class)
    error: str | None = None


class ChatState(Record):
    """The agent's conversation after a round, as Aider keeps it (messages already answered,
    and any not yet moved back), each {"role", "content"}: enough to restart the chat there."""

    done: list[dict] = Field(default_factory=list)
    current: list[dict] = Field(default_factory=list)


class ProviderError(Record):
    """How the model endpoint failed a round, as the agent reports it: the provider's error
    class and message for the last call, after the agent's own retries, and how many calls
    in a row failed."""

    type: str
    message: str
    failed_calls: int = Field(1, ge=1)

    def __str__(self) -> str:
        return f"{self.type}: {self.message}"


class RlefSteps(Record):
    """The Self-RLEF steps that followed a round's code (predict/rlef.py), written to
    round-<n>/self-rlef.json: the model's prediction for each public test, request and
    answer (none under self-rlef-exec), then the decision's request and answer, and the
    decision. A decision that fixed is also the next round's trajectory."""

    schema_version: Literal[1] = 1
    round: int = Field(ge=1)
    simulate: list[ModelCall] = Field(default_factory=list)
    decide: ModelCall | None = None
    decision: Literal["submit", "fix"] | None = None


class RoundTrajectory(Record):
    """What happened between the agent and the model in one round: the message the harness
    sent, every model call, the agent's own warnings and the files it changed. Written to
    round-<n>/trajectory.json beside the workspace snapshot and the test report."""

    schema_version: Literal[1, 2] = 2  # 1: provider_error was written as its one line of text
    round: int = Field(ge=1)
    message: str
    sent_at: str
    response: str | None = None       # the agent's final answer text of the round
    calls: list[ModelCall] = Field(default_factory=list)
    edited_files: list[str] = Field(default_factory=list)
    notes: list[str] = Field(default_factory=list)  # the agent's error and warning lines
    counters: AgentCounters = Field(default_factory=AgentCounters)
    provider_error: ProviderError | None = None
    # The conversation at the round's end: `--resume` restarts a trial whose next round
    # failed from here, with this round's workspace.
    chat_after: ChatState | None = None

    @field_validator("provider_error", mode="before")
    @classmethod
    def _provider_error_as_text(cls, value: Any) -> Any:
        """Schema 1 wrote "<type>: <message>"; the count of failed calls was not kept."""
        if isinstance(value, str):
            kind, _, message = value.partition(": ")
            return ProviderError(type=kind, message=message)
        return value


class TrialOutcome(str, Enum):
    passed = "passed"
    failed = "failed"
    infra_error = "infra_error"  # not done: --resume reruns it


class TrialResult(Record):
    schema_version: Literal[1] = 1
    run_id: str
    config: str           # the configuration's name (a folder name under the run)
    task: str             # task slug
    trial: int = Field(ge=1)
    suite: str
    task_hash: str
    model: str
    outcome: TrialOutcome
    passed_round: int | None = None  # the first round whose tests passed
    rounds: list[RoundRecord] = Field(default_factory=list)
    # The round whose answer the trial stands by, its last; written under simulated
    # feedback and Self-RLEF, where a round can follow one that passed (real feedback stops at a pass).
    # The outcome is this round's.
    submitted_round: int | None = Field(None, exclude_if=_absent)
    infra_error: InfraFailure | None = None
    tampered: list[str] = Field(default_factory=list)  # protected files any round changed
    prompt_hash: str | None = None  # the contract's texts as rendered for this task
    started_at: str
    finished_at: str

    def passes_after(self, round_no: int) -> bool:
        return passes_after(self.rounds, round_no)

    @property
    def done(self) -> bool:
        return self.outcome is not TrialOutcome.infra_error

    @property
    def harness_bug(self) -> bool:
        return self.infra_error is not None and self.infra_error.kind == InfraKind.harness.value

    @property
    def suite_error(self) -> bool:
        return self.infra_error is not None and self.infra_error.kind == InfraKind.suite.value

    def rerun_on_resume(self, retry_harness_errors: bool = False) -> bool:
        """Whether `--resume` runs the trial again: one that is not done is, but one that a
        bug of the harness ended only when asked, since rerunning it mostly reruns the bug,
        and one whose task could not be read never (the run's task cannot change)."""
        return not self.done and not self.suite_error and (retry_harness_errors or not self.harness_bug)


class ConfigManifest(Record):
    """One model configuration of a run, with every hash that can change its results."""

    name: str
    model: str                     # the model as given (a litellm model string, local/<adapter>, gold, mutant:S)
    api_base: str | None = None    # its endpoint, where it is a server
    api_key_env: str | None = Field(None, exclude_if=_absent)  # the variable its key was read from (a models file's)
    adapter: str | None = None     # adapter card name for local/<adapter>
    adapter_hash: str | None = None
    trained_on_tasks: list[str] | None = None
    sampling: Sampling = Field(default_factory=Sampling)
    agent_profile: str
    agent_hash: str
    aider_version: str
    edit_format: str
    contract: str
    contract_hash: str
    # A contract whose texts came from the user's Aider checkout: the file read, its hash.
    contract_texts_file: str | None = None
    contract_texts_sha256: str | None = None
    # What follows a round: the real tests' output, or the model's own prediction of it.
    feedback: FeedbackMode = Field("real", exclude_if=_absent)
    feedback_hash: str | None = Field(None, exclude_if=_absent)  # simulated: its template and prediction prompt
    # The last day of the model's training data, as its models file entry or adapter card
    # declares it: reports call a task written after it only by this and the task's date.
    training_cutoff: datetime.date | None = Field(None, exclude_if=_absent)


class TestWritingSettings(Record):
    """How a test-writing run scores its suites: the mutant sample its targets come from,
    and whether expected values are filled in by execution (testwriting/fill.py)."""

    __test__ = False

    mutant_cap: int | None = Field(30, ge=1)  # at most this many mutants per task, sampled; None: all
    mutant_seed: int = 0
    fill: bool = False


# What a registered bar judges: tasks solved, or a share of written suites (report/metrics.py).
BarMetric = Literal["solved", "valid", "kill_rate", "assertion_accuracy"]


class BarRegistration(Record):
    """A bar as `harness preregister` states it, before any trial: NEW must gain at least
    `delta` over BASE in `metric`, judged in `round` (1, or 2: within two rounds)."""

    metric: BarMetric = "solved"
    base: str                        # configuration names, as the run names its configs
    new: str
    delta: float
    round: Literal[1, 2] = 2
    hypothesis: str | None = None    # free text, for the reader
    registered_at: str               # UTC, ISO 8601, when it was written


class RegisteredBar(Record):
    """A registration file: the bar and the SHA-256 of its canonical JSON (hashing.sha256_json),
    so a bar changed after it was written is refused (registered_bar.py)."""

    schema_version: Literal[1] = 1
    bar: BarRegistration
    sha256: str


class RunRegistration(Record):
    """A run's record of the bar registered for it, written into the manifest before the
    first trial: the whole registration and the file it was read from."""

    registration: RegisteredBar
    path: str
    recorded_at: str                 # UTC: when the run recorded it (the manifest's creation)


class RunManifest(Record):
    schema_version: Literal[1] = 1
    run_id: str
    created_at: str
    finished_at: str | None = None
    command_line: list[str] = Field(default_factory=list)
    harness_version: str
    suite: str
    suite_version: str
    suite_hash: str
    suite_path: str | None = None    # where the suite folder was, so --resume finds it again
    task_hashes: dict[str, str]
    tasks: list[str]
    trials: int
    rounds: int
    image: str | None = None         # tag
    image_digest: str | None = None
    sandbox: str                     # backend and isolation line
    # How the latest invocation ran the trials (a resumed run may use another worker count);
    # None in runs from before they were recorded.
    executor: str | None = None
    workers: int | None = None
    configs: list[ConfigManifest]
    kind: TrialKindName = "repair"   # what the trials ask for (harness/kinds/)
    tests: TestWritingSettings | None = None      # a test-writing run's scoring settings
    # Tasks the suite declares unseen by the models it evaluates (suite.toml `unseen`).
    unseen_tasks: list[str] = Field(default_factory=list)
    # The day each of the run's tasks was written (suite.toml `[written]`), so a report
    # compares them with each config's training cutoff without the suite folder.
    written: dict[str, datetime.date] = Field(default_factory=dict, exclude_if=lambda v: not v)
    # The bar `harness run --preregistered FILE` was given (None: none was).
    preregistered: RunRegistration | None = Field(None, exclude_if=_absent)
