"""`harness run`: every configuration (a model, with the run's agent profile and prompt
contract) on every task, once per trial, each trial through up to `rounds` rounds of
agent then tests, the test output fed back after a failed round (or, with `--feedback
simulated`, the failures the model predicts its own code has on the public tests:
predict/feedback.py; `next_message` is where the two part).

`run_trial` is one task, one trial, all rounds: it owns a workspace, a sandbox session and
an agent chat, writes its folder (store.py) and returns its TrialResult; result.json comes
last. `run` plans (everything checkable is checked before any work), writes the manifest,
hands the trials that are not done to an executor (harness/executor: worker threads here,
or slots on a Ray cluster's nodes, whose trial folders come back to be written here), shows
progress and prints the summary. A trial that ends in an infrastructure error is not done:
`--resume` reruns it, and only it (one a bug of the harness ended only with
--retry-harness-errors); when the error came after round k was tested, only rounds k + 1
on, from round k's workspace and conversation, so no recorded outcome is lost."""

from __future__ import annotations

import shutil
import tempfile
import threading
import time
import traceback
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Callable

from pydantic import BaseModel, ConfigDict, Field

from . import __version__
from .agents.base import AgentChat, AgentHost, AgentProfile
from .agents.registry import DEFAULT_PROFILE, agent_host, load_profile, prepare, read_profile
from .contract import PromptContract, load_contract, run_contract
from .errors import BadInput, InfraError, InfraKind, ProviderFailure
from .executor import ExecutorSettings, Host, SandboxFacts, Slot, make_executor
from .executor.base import BAD_INPUT, UnitFailure
from .models import ModelSpec, check_access, config_name, parse_model, read_models_file
from .hashing import sha256_json
from .records import (
    ChatState,
    ConfigManifest,
    FeedbackMode,
    InfraFailure,
    RoundRecord,
    RoundTimings,
    RoundTrajectory,
    RunManifest,
    Sampling,
    TestWritingSettings,
    TrialKindName,
    TrialOutcome,
    TrialResult,
)
from .result_facts import rounds_recorded
from .sandbox.pool import SessionLease, SessionPool
from .fs import check_writable, read_files, regular_files, write_record
from .store import CONTRACT_FILE, HARNESS_ERROR_LOG, PROFILE_FILE, RESULT, RunFolder, config_contract_file, new_run_id, utc_now
from .task import Task
from .kinds import DEFAULT_KIND, TrialKind, kind_class, kinds_with, make_kind
from .kinds.repair import RepairKind
from .testrun import created_files

Log = Callable[[str], None]


class RunConfig(BaseModel):
    """Everything `harness run` is asked to do. With `resume`, the run's own manifest
    decides what runs; only where and how fast may change."""

    model_config = ConfigDict(extra="forbid")

    suite: str = "fixed26"
    kind: TrialKindName = DEFAULT_KIND   # what each trial asks for (harness/kinds/)
    tests: TestWritingSettings = Field(default_factory=TestWritingSettings)  # kind "tests": how suites are scored
    # MODEL, or MODEL::CONTRACT for a configuration with a prompt contract of its own (a
    # prompted control: the same model with another prompt).
    models: list[str] = Field(default_factory=list)
    models_file: Path | None = None  # litellm's model_list: endpoints and key variables by model_name
    api_base: str | None = None      # the endpoint of the run's one model (each names its own: MODEL@URL)
    tasks: list[str] | None = None
    trials: int = Field(4, ge=1)
    rounds: int = Field(2, ge=1, le=10)
    feedback: FeedbackMode = "real"
    workers: int | None = Field(None, ge=1)
    agent: str = DEFAULT_PROFILE
    contract: str | None = None  # default: the profile's own contract, else DEFAULT_CONTRACT
    aider_checkout: Path | None = None  # default: $HARNESS_AIDER_CHECKOUT; for contracts that read Aider's prompts
    sampling: Sampling = Field(default_factory=Sampling)
    sandbox: str = "auto"
    runs_dir: Path = Path("runs")
    run_id: str | None = None
    resume: str | None = None
    retry_harness_errors: bool = False  # with resume: rerun trials a harness bug ended too
    dry_run: bool = False
    command_line: list[str] = Field(default_factory=list)
    executor: ExecutorSettings | None = None  # where the trials run; None: as HARNESS_EXECUTOR says (local)
    requests_per_minute: float | None = Field(None, gt=0)  # a provider's rate limit, shared by every worker


# Options that change what a run computes; a resumed run takes them from its manifest.
_FIXED_ON_RESUME = ("models", "models_file", "api_base", "tasks", "trials", "rounds", "feedback", "agent", "contract", "sampling",
                    "run_id", "kind", "tests")
# Between a model and the prompt contract of its own configuration: `--model M::CONTRACT`.
CONTRACT_SEPARATOR = "::"


def split_contract(text: str) -> tuple[str, str]:
    """`MODEL::CONTRACT` -> (MODEL, CONTRACT); the `::` of an IPv6 endpoint
    (`openai/m@http://[::1]:8000/v1`) is not a separator: a contract's name has no `/`, `]` or `:`."""
    model, sep, own = text.rpartition(CONTRACT_SEPARATOR)
    if not sep or any(ch in own for ch in "/]:"):
        return text, ""
    return model, own


@dataclass
class PlannedConfig:
    manifest: ConfigManifest
    model: ModelSpec
    contract: PromptContract


@dataclass
class RunPlan:
    run_id: str
    suite_name: str
    suite_version: str
    suite_hash: str
    suite_path: Path
    tasks: list[Task]
    configs: list[PlannedConfig]
    profile: AgentProfile
    contract: PromptContract
    trials: int
    rounds: int
    sampling: Sampling
    resume: bool
    feedback: FeedbackMode = "real"
    kind: TrialKind = field(default_factory=RepairKind)
    unseen_tasks: list[str] = field(default_factory=list)
    unreadable: dict[str, str] = field(default_factory=dict)  # task -> why its files cannot be read as text

    def trial_keys(self) -> list[tuple[PlannedConfig, Task, int]]:
        """Trial-major, so an early stop leaves every task and config with some results."""
        return [(c, t, k) for k in range(1, self.trials + 1) for t in self.tasks for c in self.configs]


class ConfigSummary(BaseModel):
    config: str
    model: str
    tasks: int                   # N: tasks in the run
    trials: int                  # T
    first_round_mean: float | None  # mean over trials of tasks solved in round 1; None: no round was tested
    two_round_mean: float | None    # ... within two rounds
    recovered: int               # first-round failures solved in round 2 (k)
    first_round_failures: int    # n
    infra_errors: int            # trials not done: an infrastructure error, before or after round 1
    harness_errors: int = 0      # of those, the ones a bug of the harness ended (not the agent's fault)
    suite_errors: int = 0        # of those, trials of a task whose files could not be read (never run)
    missing: int                 # trials with no result at all (the run was stopped)
    # A test-writing run: the mean over tasks of kill rate and assertion accuracy within
    # two rounds (None: no value), as the report computes them.
    kill_rate: float | None = None
    assertion_accuracy: float | None = None



class RunSummary(BaseModel):
    run_id: str
    run_dir: Path
    planned: int           # task-trials the run holds
    ran: int = 0           # task-trials run by this invocation
    skipped: int = 0       # done before it, or ended by a harness bug and not retried (resume)
    dry_run: bool = False
    configs: list[ConfigSummary] = Field(default_factory=list)
    plan: list[str] = Field(default_factory=list)  # dry run: "config task trial-k" lines


# --- planning --------------------------------------------------------------------------


def _check_sampling(s: Sampling) -> None:
    if s.temperature is not None and s.temperature < 0:
        raise BadInput(f"--temperature must be >= 0 (got {s.temperature})")
    if s.top_p is not None and not 0 < s.top_p <= 1:
        raise BadInput(f"--top-p must be in (0, 1] (got {s.top_p})")
    if s.max_tokens is not None and s.max_tokens <= 0:
        raise BadInput(f"--max-tokens must be positive (got {s.max_tokens})")


def _adapter_facts(spec: ModelSpec) -> dict:
    """The adapter's content hash and training set, from its card, checked against its
    files; an endpoint serving something without a card has neither."""
    if spec.kind != "local" or not spec.adapter:
        return {}
    from .adapter_card import card_files, find_card, verify_card

    if spec.adapter not in card_files():
        return {"adapter": spec.adapter}
    card, path = find_card(spec.adapter)
    verify_card(card, path)
    trained = card.training.trained_on_tasks if card.training else None
    return {"adapter": spec.adapter, "adapter_hash": card.sha256, "trained_on_tasks": trained}


def feedback_hash(contract: PromptContract) -> str:
    """What simulated feedback says besides the code: the contract's template and the
    prediction prompt the model simulates with."""
    from .predict.prompt import prompt_hash

    return sha256_json({"simulated_feedback": contract.simulated_feedback, "prediction": prompt_hash()})


def _config_manifest(name: str, spec: ModelSpec, profile: AgentProfile, contract: PromptContract,
                     sampling: Sampling, feedback: FeedbackMode) -> ConfigManifest:
    return ConfigManifest(
        name=name, model=spec.name, api_base=spec.api_base, api_key_env=spec.api_key_env, sampling=sampling,
        agent_profile=profile.name, agent_hash=profile.content_hash, aider_version=profile.agent_version,
        edit_format=profile.edit_format, contract=contract.name, contract_hash=contract.content_hash,
        contract_texts_file=contract.texts_file, contract_texts_sha256=contract.texts_sha256,
        feedback=feedback, feedback_hash=feedback_hash(contract) if feedback == "simulated" else None,
        **_adapter_facts(spec),
    )


def model_specs(config: RunConfig) -> list[tuple[ModelSpec, str]]:
    """Each `--model` as a spec and the name of its configuration's own contract ("" for the
    run's): a models file's entry by its model_name, else the string itself. A models file
    alone runs every model it lists. `--api-base` gives the endpoint of the run's one model;
    with several it would be every model's, which no run means."""
    named = read_models_file(config.models_file) if config.models_file is not None else {}
    wanted = config.models or list(named)
    if not wanted:
        raise BadInput("no --model given")
    if config.api_base and len(wanted) > 1:
        raise BadInput("--api-base is the endpoint of one model; with several --model give each server its own: "
                       "--model openai/NAME@http://HOST:PORT/v1 (or a --models-file)")
    out = []
    for text in wanted:
        model, own = split_contract(text)
        if model in named:
            if config.api_base:
                raise BadInput(f"{model}: its endpoint is in {config.models_file}; drop --api-base")
            out.append((named[model], own))
        else:
            out.append((parse_model(model, config.api_base), own))
    return out


def check_models(specs: list[ModelSpec]) -> None:
    """check_access of every distinct model and endpoint, at once (each is a network round
    trip); the first model's error in the order given is the one raised."""
    from concurrent.futures import ThreadPoolExecutor

    distinct = list({(s.litellm_model, s.api_base, s.api_key_env): s for s in specs if not s.builtin}.values())
    if not distinct:
        return
    with ThreadPoolExecutor(max_workers=min(8, len(distinct))) as pool:
        errors = list(pool.map(_access_error, distinct))
    first = next((e for e in errors if e is not None), None)
    if first is not None:
        raise first


def _access_error(spec: ModelSpec) -> BadInput | None:
    try:
        check_access(spec)
    except BadInput as exc:
        return exc
    return None


def unreadable_tasks(tasks: list[Task]) -> dict[str, str]:
    """The tasks whose files cannot be read as text, each with the one line that says why:
    their trials are recorded as suite errors and the run goes on with the others."""
    return {t.slug: problem for t in tasks if (problem := t.text_problem()) is not None}


def _kind_contract(name: str, kind: TrialKindName, checkout: Path | None) -> PromptContract:
    contract = load_contract(name).with_checkout_texts(checkout)
    if contract.kind != kind:
        raise BadInput(f"prompt contract {contract.name} is for {contract.kind} trials, not for --kind {kind}")
    return contract


def make_plan(config: RunConfig) -> RunPlan:
    """Resolve and check everything before any work: bad input raises BadInput here."""
    from .suite import find_suite

    if config.resume:
        given = sorted(f for f in _FIXED_ON_RESUME if f in config.model_fields_set)
        if given:
            raise BadInput(f"--resume takes {', '.join(given)} from the run's manifest; drop those options")
        return _resume_plan(config, config.resume, find_suite)
    if config.retry_harness_errors:
        raise BadInput("--retry-harness-errors reruns trials of an existing run: give it with --resume RUN_ID")

    _check_sampling(config.sampling)
    suite = find_suite(config.suite)
    tasks = suite.select(config.tasks)
    if not tasks:
        raise BadInput(f"suite {suite.name} has no tasks to run")
    kind = make_kind(config.kind, config.tests)
    refused = next((why for t in tasks if (why := kind.check_task(t)) is not None), None)
    if refused is not None:
        raise BadInput(refused)
    profile = load_profile(config.agent)
    checkout = config.aider_checkout
    contract = _kind_contract(config.contract or kind.default_contract(profile.contract), config.kind, checkout)
    if config.run_id is not None and (not config.run_id.strip() or "/" in config.run_id or config.run_id.startswith(".")):
        raise BadInput(f"--run-id {config.run_id!r} is not a folder name")
    unreadable = unreadable_tasks(tasks)
    for task in tasks:
        if task.slug not in unreadable:
            kind.chat_files(task)  # a task this kind cannot run is refused now (a test writer's needs one test file)
    if config.feedback == "simulated" and not kind.simulated_feedback:
        raise BadInput(f"--feedback simulated is for {' and '.join(kinds_with('simulated_feedback'))} trials (the model "
                       f"predicts its code's test results), not --kind {config.kind}")

    configs: list[PlannedConfig] = []
    taken: set[str] = set()
    models = model_specs(config)
    check_models([spec for spec, _ in models])
    for spec, own in models:
        own_contract = _kind_contract(own, config.kind, checkout) if own else contract
        cname = config_name(spec, taken, own_contract.name if own else "")
        taken.add(cname)
        if config.feedback == "simulated" and not own_contract.simulated_feedback:
            raise BadInput(f"--feedback simulated: prompt contract {own_contract.name} has no simulated_feedback template")
        manifest = _config_manifest(cname, spec, profile, own_contract, config.sampling, config.feedback)
        configs.append(PlannedConfig(manifest, spec, own_contract))
    builtin = next((c.model for c in configs if c.model.builtin), None)
    if builtin is not None and profile.edit_format not in ("whole", "diff"):
        raise BadInput(f"the {builtin.name} model has no answers in edit format {profile.edit_format!r}")
    if config.feedback == "simulated" and builtin is not None:
        raise BadInput(f"--feedback simulated: the {builtin.name} model answers with code, not predictions")
    mutant = next((c.model for c in configs if c.model.kind == "mutant"), None)
    if mutant is not None and not kind.mutant_answers:
        raise BadInput(f"--model {mutant.name} answers {' and '.join(kinds_with('mutant_answers'))} trials; "
                       f"--kind {config.kind} has gold")
    return RunPlan(
        run_id=config.run_id or new_run_id(), suite_name=suite.name, suite_version=suite.version,
        suite_hash=suite.content_hash, suite_path=suite.path, tasks=tasks, configs=configs, profile=profile,
        contract=contract, trials=config.trials, rounds=config.rounds, sampling=config.sampling, resume=False,
        feedback=config.feedback,
        kind=kind, unseen_tasks=[t.slug for t in tasks if t.slug in suite.unseen_tasks], unreadable=unreadable,
    )


def _resume_plan(config: RunConfig, run_id: str, find_suite) -> RunPlan:
    folder = RunFolder.open(config.runs_dir, run_id)
    m = folder.read_manifest()
    # --suite, if given, says where the run's suite lives now; its content must not differ.
    if "suite" in config.model_fields_set:
        suite = find_suite(config.suite)
    elif m.suite_path and Path(m.suite_path, "suite.toml").is_file():
        suite = find_suite(str(Path(m.suite_path) / "suite.toml"))
    else:
        suite = find_suite(m.suite)
    tasks = suite.select(m.tasks)
    for task in tasks:
        if task.content_hash != m.task_hashes.get(task.slug):
            raise BadInput(f"task {task.slug} changed since run {m.run_id} started; its results would mix two versions")
    first = m.configs[0]
    # The run folder keeps the exact profile and contracts it ran with.
    profile = read_profile(folder.root / PROFILE_FILE)
    contract = folder.read_record(CONTRACT_FILE, PromptContract)
    configs: list[PlannedConfig] = []
    for cfg in m.configs:
        cfg_contract = run_contract(folder, cfg.name)
        if cfg_contract.content_hash == contract.content_hash:
            cfg_contract = contract  # one object: written once, as the run's
        if profile.content_hash != cfg.agent_hash:
            raise BadInput(f"agent profile {cfg.agent_profile} changed since run {m.run_id} started")
        if cfg_contract.content_hash != cfg.contract_hash:
            raise BadInput(f"prompt contract {cfg.contract} changed since run {m.run_id} started")
        if cfg.feedback == "simulated" and feedback_hash(contract) != cfg.feedback_hash:
            raise BadInput(f"simulated feedback (its template or the prediction prompt) changed since run {m.run_id} started")
        spec = parse_model(cfg.model, cfg.api_base if cfg.adapter is None else None, cfg.api_key_env)
        facts = _adapter_facts(spec)
        if facts.get("adapter_hash") != cfg.adapter_hash:
            raise BadInput(f"adapter {cfg.adapter} changed since run {m.run_id} started")
        configs.append(PlannedConfig(cfg, spec, cfg_contract))
    check_models([c.model for c in configs])
    return RunPlan(
        run_id=m.run_id, suite_name=m.suite, suite_version=m.suite_version, suite_hash=m.suite_hash,
        suite_path=suite.path, tasks=tasks, configs=configs, profile=profile, contract=contract, trials=m.trials,
        rounds=m.rounds, sampling=first.sampling, resume=True, feedback=first.feedback, kind=make_kind(m.kind, m.tests),
        unseen_tasks=m.unseen_tasks, unreadable=unreadable_tasks(tasks),
    )


# --- one trial -------------------------------------------------------------------------


@dataclass(frozen=True)
class TrialSpec:
    """Everything one trial depends on."""

    run_id: str
    config: str
    suite: str
    task: Task
    trial: int
    rounds: int
    model: str              # the model as the run names it (manifest, results)
    litellm_model: str      # what the agent is given
    api_base: str | None
    api_key: str | None
    contract: PromptContract
    sampling: Sampling
    feedback: FeedbackMode = "real"
    simulator: Callable | None = None  # simulated feedback: the model's own completions (predict/ask.py)
    kind: TrialKind = field(default_factory=RepairKind)


def _copy_tree(files: dict[str, Path], dest: Path) -> None:
    for rel, src in files.items():
        target = dest / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(src, target)


def _write_tree(files: dict[str, bytes], dest: Path) -> None:
    for rel, data in files.items():
        target = dest / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)


@dataclass(frozen=True)
class ResumePoint:
    """Where a trial whose infrastructure error came after a tested round continues: the
    tested rounds it keeps, and the last one's workspace and conversation."""

    rounds: list[RoundRecord]
    workspace: Path
    chat: ChatState
    started_at: str


def resume_point(result: TrialResult | None, trial_dir: Path) -> ResumePoint | None:
    """None when the trial must be run from the start: no result, nothing tested before
    the error, or round k's snapshot or conversation missing from its folder."""
    if result is None or result.done:
        return None
    k = rounds_recorded(result)
    if k == 0:
        return None
    round_dir = trial_dir / f"round-{k}"
    try:
        trajectory = RoundTrajectory.model_validate_json((round_dir / "trajectory.json").read_bytes())
    except (OSError, ValueError):
        return None
    if trajectory.chat_after is None or not (round_dir / "workspace").is_dir():
        return None
    return ResumePoint(rounds=result.rounds[:k], workspace=round_dir / "workspace", chat=trajectory.chat_after,
                       started_at=result.started_at)


def next_message(spec: TrialSpec, record: RoundRecord, passed: bool, workspace: Path,
                 sandboxing: SessionLease) -> str | None:
    """The feedback seam: the message that starts the round after `record` (its code in
    `workspace`; `passed`: the round's judgement), or None when the trial stops there. Real
    feedback: the test output of a round that failed. Simulated: the failures the model
    predicts its code has on the public tests (predict/feedback.py), whatever the real
    tests said."""
    if spec.feedback == "real":
        # A round that was judged has a report; only an interrupted one has none.
        if passed or record.test_report is None:
            return None
        return spec.contract.feedback_message(spec.task, record.test_report, spec.kind.chat_files(spec.task))
    from .predict.feedback import simulated_message

    if spec.simulator is None:
        raise InfraError(InfraKind.harness, "simulated feedback without the model that simulates it")
    return simulated_message(spec.task, spec.contract, spec.simulator, record, workspace, sandboxing)


def _simulator(model: ModelSpec, plan: RunPlan) -> Callable:
    """The configuration's model asked directly (no agent) with the run's sampling and the
    profile's limits: a request's timeout, and backoff within the provider retry budget
    (three waits, doubling: 7 times the first)."""
    from .predict.ask import asker

    timeouts = plan.profile.timeouts
    return asker(model, temperature=plan.sampling.temperature, timeout_s=timeouts.request_s,
                 backoff_s=min(2.0, timeouts.provider_retry_s / 7))


def run_trial(spec: TrialSpec, trial_dir: Path, sessions: SessionPool, agents: AgentHost,
              cancel: threading.Event | None = None, resume: ResumePoint | None = None) -> TrialResult:
    """One task, one trial, all rounds, or with `resume` the rounds after those it keeps.
    Writes `trial_dir` (emptied first, but for the kept rounds) and returns the result it
    wrote last to result.json."""
    task, kind = spec.task, spec.kind
    if resume is None:
        started_at = utc_now()
        RunFolder.fresh_trial_dir(trial_dir)
        rounds: list[RoundRecord] = []
    else:
        started_at = resume.started_at
        RunFolder.keep_rounds(trial_dir, len(resume.rounds))
        rounds = list(resume.rounds)
    passed_round = next((r.round for r in rounds if r.test_report is not None and r.test_report.passed), None)
    passed = False  # the last round's judgement: the submitted answer's
    failure: InfraFailure | None = None
    workspace = Path(tempfile.mkdtemp(prefix=f"harness-ws-{task.slug}-"))
    sandboxing: SessionLease | None = None
    agent = agents.agent()
    label = f"{spec.run_id} {spec.config} {task.slug} trial-{spec.trial}"

    def stopping() -> None:
        if cancel is not None and cancel.is_set():
            raise InfraError(InfraKind.interrupted, "the run was stopped")

    try:
        _write_tree(kind.workspace(task), workspace)
        if resume is not None:
            _copy_tree(regular_files(resume.workspace), workspace)
        stopping()
        sandboxing = sessions.lease(label)
        edits = kind.chat_files(task)
        shown = edits + kind.read_only_files(task)
        agent.start(AgentChat(
            workspace=workspace, files=edits, read_only=kind.read_only_files(task),
            ignore=[f for f in task.shipped_files if f not in shown],
            model=spec.litellm_model, api_base=spec.api_base, api_key=spec.api_key, sampling=spec.sampling,
            system_text=spec.contract.system_text(task, edits),
            log_file=trial_dir / "agent.log", chat_file=trial_dir / "aider.chat.md",
            history=resume.chat if resume is not None else None,
        ))
        message: str | None
        if resume is None:
            message = spec.contract.first_message(task, edits)
        else:
            last = rounds[-1].test_report  # the resume point is a tested round
            passed = last is not None and last.passed
            message = next_message(spec, rounds[-1], passed, workspace, sandboxing)
        for n in range(len(rounds) + 1, spec.rounds + 1):
            if message is None:
                break
            stopping()
            t0 = time.monotonic()
            got = agent.send(message)
            round_dir = trial_dir / f"round-{n}"
            _copy_tree(regular_files(workspace), round_dir / "workspace")
            write_record(round_dir / "trajectory.json", RoundTrajectory(
                round=n, message=message, sent_at=got.sent_at, response=got.response, calls=got.calls,
                edited_files=got.edited_files, notes=got.notes, counters=got.counters,
                provider_error=got.provider_error, chat_after=got.chat,
            ))
            timings = RoundTimings(model_seconds=got.model_seconds, agent_seconds=got.agent_seconds,
                                   total_seconds=round(time.monotonic() - t0, 4))
            created = created_files(task, regular_files(workspace))
            if got.provider_error is not None:
                # The agent retried with backoff and gave up: the provider failed, not the model.
                rounds.append(RoundRecord(round=n, counters=got.counters, edited_files=got.edited_files,
                                          created_files=created, timings=timings))
                raise ProviderFailure(str(got.provider_error), got.provider_error.failed_calls)
            stopping()
            t1 = time.monotonic()
            judged = sandboxing.use(lambda session: kind.judge(
                task, workspace, session, transcript=spec.contract.wants_transcript,
                time_limit_s=agent.profile.tests.time_limit_s))
            report = judged.report
            timings.test_seconds = round(time.monotonic() - t1, 4)
            timings.total_seconds = round(time.monotonic() - t0, 4)
            write_record(round_dir / "test_report.json", report)
            for name, record in judged.records.items():
                write_record(round_dir / name, record)
            rounds.append(judged.facts.record(round=n, counters=got.counters, edited_files=got.edited_files,
                                              created_files=created, test_report=report, timings=timings))
            passed = judged.passed
            if passed and passed_round is None:
                passed_round = n
            if n < spec.rounds:
                message = next_message(spec, rounds[-1], passed, workspace, sandboxing)
    except InfraError as exc:
        infra = InfraKind.interrupted if cancel is not None and cancel.is_set() else exc.kind
        failure = InfraFailure(kind=infra.value, message=str(exc), attempts=exc.attempts)
    except Exception as exc:  # a harness bug must not pass for a model failure, nor stop the run
        (trial_dir / HARNESS_ERROR_LOG).write_text(traceback.format_exc())
        failure = InfraFailure(kind=InfraKind.harness.value, message=f"unexpected {type(exc).__name__}: {exc}")
    finally:
        agent.close()
        if sandboxing is not None:
            sandboxing.close()
        shutil.rmtree(workspace, ignore_errors=True)

    if failure is not None:
        outcome = TrialOutcome.infra_error
    else:  # the last round's answer is the one submitted
        outcome = TrialOutcome.passed if passed else TrialOutcome.failed
    tampered = sorted({f for r in rounds if r.test_report for f in r.test_report.tampered})
    result = TrialResult(
        run_id=spec.run_id, config=spec.config, task=task.slug, trial=spec.trial, suite=spec.suite,
        task_hash=task.content_hash, model=spec.model, outcome=outcome, passed_round=passed_round,
        rounds=rounds, infra_error=failure, tampered=tampered,
        submitted_round=len(rounds) if spec.feedback == "simulated" and failure is None else None,
        prompt_hash=_prompt_hash(spec),
        started_at=started_at, finished_at=utc_now(),
    )
    write_record(trial_dir / RESULT, result)
    return result


# --- the run ---------------------------------------------------------------------------


@dataclass(frozen=True)
class TrialJob:
    """One trial as an executor hands it to a slot: its spec, its folder on the driver's
    disk, where it continues from, with the folder's kept files for a slot on another
    machine, and how its agent is made there."""

    spec: TrialSpec
    trial_dir: Path
    resume: ResumePoint | None
    kept: dict[str, bytes]
    profile: AgentProfile
    builtin: ModelSpec | None         # gold or mutant: the slot's own host serves it
    drivers_log: Path                 # the agent's own processes' log (Aider's drivers), for a host in the driver
    limiter: Any = None               # the provider's rate limit, shared by every slot
    limiter_name: str | None = None


@dataclass(frozen=True)
class ShippedTrial:
    """A trial run on another machine: its folder's files (result.json among them) and result."""

    files: dict[str, bytes]
    result: TrialResult


def _agent_ready(host: Host, profile: AgentProfile) -> None:
    prepare(profile)


def _builtin_base(host: Host, job: TrialJob, model: ModelSpec) -> str:
    """The endpoint of a trial of a built-in model (`model`, the job's), served by the slot's own host."""
    spec = job.spec
    if model.kind == "gold":
        from .gold import GoldModel

        gold = host.keep("gold", lambda: GoldModel().start(), close=GoldModel.stop)
        key = gold.add(spec.suite, spec.task, spec.kind.gold_answer(spec.task))
        return gold.api_base(job.profile.edit_format, key)
    from .mutant_model import MutantModel

    if model.share is None:
        raise InfraError(InfraKind.harness, f"the mutant model {model.name} has no share of wrong answers")
    mutant = host.keep("mutant", lambda: MutantModel().start(), close=MutantModel.stop)
    return mutant.add(spec.suite, spec.task, model.share, model.seed, spec.trial, job.profile.edit_format)


def run_job(job: TrialJob, slot: Slot) -> TrialResult | ShippedTrial:
    """A trial in a slot, with its host's sessions, agents (Aider's warm drivers) and gold
    server. A host in the driver writes the trial's folder; one elsewhere writes a folder of
    its own and sends its files back."""
    host = slot.host
    agents = host.keep(("agent", job.profile.content_hash, job.limiter_name),
                       lambda: agent_host(job.profile, job.drivers_log if host.in_driver else None, job.limiter),
                       stop=lambda agents: agents.kill_all())  # the agent's own (AgentHost.kill_all is the base's)
    spec = job.spec
    if job.builtin is not None:
        spec = replace(spec, api_base=_builtin_base(host, job, job.builtin))
    if host.in_driver:
        return run_trial(spec, job.trial_dir, host.sessions, agents, host.cancel, job.resume)
    with tempfile.TemporaryDirectory(prefix="harness-trial-") as tmp:
        trial_dir, resume = Path(tmp) / "trial", job.resume
        if resume is not None:
            RunFolder.write_files(trial_dir, job.kept)
            resume = replace(resume, workspace=trial_dir / resume.workspace.relative_to(job.trial_dir))
        result = run_trial(spec, trial_dir, host.sessions, agents, host.cancel, resume)
        return ShippedTrial(read_files(trial_dir), result)


def _prompt_hash(spec: TrialSpec) -> str | None:
    """The contract's texts for the task; None when the task's documents cannot be read (an
    error being recorded must not raise another)."""
    try:
        return spec.contract.prompt_hash(spec.task, simulated=spec.feedback == "simulated",
                                         edits=spec.kind.chat_files(spec.task))
    except BadInput:
        return None


def lost_trial(job: TrialJob, why: str, kind: InfraKind = InfraKind.node) -> TrialResult:
    """The result of a trial no slot could finish (its node died each time it was tried):
    an infrastructure error, rerun by --resume, keeping the rounds it was resumed with; or
    of one that never started, its task unreadable (kind suite)."""
    return ended_trial(job, InfraFailure(kind=kind.value, message=why))


def ended_trial(job: TrialJob, failure: InfraFailure) -> TrialResult:
    """The result of a trial whose unit ended in `failure` outside the trial itself."""
    spec, resume = job.spec, job.resume
    rounds = list(resume.rounds) if resume is not None else []
    if resume is not None:
        RunFolder.keep_rounds(job.trial_dir, len(rounds))
    else:
        RunFolder.fresh_trial_dir(job.trial_dir)
    result = TrialResult(
        run_id=spec.run_id, config=spec.config, task=spec.task.slug, trial=spec.trial, suite=spec.suite,
        task_hash=spec.task.content_hash, model=spec.model, outcome=TrialOutcome.infra_error, rounds=rounds,
        infra_error=failure, prompt_hash=_prompt_hash(spec),
        tampered=sorted({f for r in rounds if r.test_report for f in r.test_report.tampered}),
        started_at=resume.started_at if resume is not None else utc_now(), finished_at=utc_now(),
    )
    write_record(job.trial_dir / RESULT, result)
    return result


def _manifest(plan: RunPlan, config: RunConfig, facts: SandboxFacts) -> RunManifest:
    return RunManifest(
        run_id=plan.run_id, created_at=utc_now(), command_line=config.command_line, harness_version=__version__,
        suite=plan.suite_name, suite_version=plan.suite_version, suite_hash=plan.suite_hash,
        suite_path=str(plan.suite_path), task_hashes={t.slug: t.content_hash for t in plan.tasks}, tasks=[t.slug for t in plan.tasks],
        trials=plan.trials, rounds=plan.rounds, image=facts.image, image_digest=facts.image_digest,
        sandbox=f"{facts.backend}: {facts.isolation}", configs=[c.manifest for c in plan.configs],
        kind=plan.kind.name, tests=plan.kind.settings, unseen_tasks=plan.unseen_tasks,
    )


def summarize_run(run_dir: Path) -> list[ConfigSummary]:
    """The headline numbers per config, from what is on disk, computed by harness.stats as
    the reports compute them."""
    from . import stats
    from .outcomes import load_run

    manifest = RunFolder(run_dir).read_manifest()
    try:
        frame = load_run(run_dir).frame
    except BadInput:  # no trial finished yet
        frame = None
    out = []
    for cfg in manifest.configs:
        first = two = None
        recovery, infra, harness, missing = stats.Ratio(0, 0), 0, 0, len(manifest.tasks) * manifest.trials
        suite = 0
        if frame is not None:
            rows = frame[frame["config"] == cfg.name]
            counts = stats.task_counts(rows)
            if len(counts):
                s = stats.summarize(cfg.name, counts, with_pass_at_k=False)
                first, two, recovery = s.mean[0], s.mean[1], s.recovery or recovery
            health = stats.health(rows)
            infra, missing = health.infra_errors + health.partial, health.missing
            harness = int((rows["infra_kind"] == InfraKind.harness.value).sum())
            suite = int((rows["infra_kind"] == InfraKind.suite.value).sum())
        else:
            folder = RunFolder(run_dir)
            results = [r for t in manifest.tasks for k in range(1, manifest.trials + 1)
                       if (r := folder.read_result(cfg.name, t, k)) is not None]
            infra, harness, suite = len(results), sum(r.harness_bug for r in results), sum(r.suite_error for r in results)
            missing -= infra
        shares = {}
        if frame is not None:
            for metric in kind_class(manifest.kind).share_metrics:
                found = stats.summarize_metric(frame, cfg.name, metric, 2, resamples=100)
                shares[metric] = found.mean if found.tasks else None
        out.append(ConfigSummary(
            config=cfg.name, model=cfg.model, tasks=len(manifest.tasks), trials=manifest.trials,
            first_round_mean=first, two_round_mean=two, recovered=recovery.k, first_round_failures=recovery.n,
            infra_errors=infra, harness_errors=harness, suite_errors=suite, missing=missing, **shares,
        ))
    return out


def _import_summary_stack() -> None:
    from . import outcomes, stats  # noqa: F401  (what summarize_run reads the run with)


def _runs_again(result: TrialResult | None, config: RunConfig) -> bool:
    return result is None or result.rerun_on_resume(config.retry_harness_errors)


def _step(progress, text: str, checking: bool = False) -> None:
    """Tell `progress` what is being prepared; `checking`: a step that may still find bad input."""
    if progress is not None and hasattr(progress, "step"):
        progress.step(text, checking)


def run(config: RunConfig, log: Log | None = None, progress=None) -> RunSummary:
    """Plan, then run every trial that is not done, on the configured executor. `progress`
    (see cli/run.py) is told what is being prepared, then the plan and each finished trial;
    `log` gets one-line notices. A dry run makes every check a run makes (the models, the
    run folder and its lock, the sandbox and executor) and runs nothing; a resume with
    nothing to run writes nothing."""
    try:
        return _run(config, log or (lambda m: None), progress)
    finally:
        if progress is not None:
            progress.end()


def _run(config: RunConfig, log: Log, progress) -> RunSummary:
    _step(progress, "checking the suite and the models", checking=True)
    plan = make_plan(config)
    check_writable(Path(config.runs_dir), "--runs-dir")
    keys = plan.trial_keys()
    lock = None
    if plan.resume:
        folder = RunFolder.open(config.runs_dir, plan.run_id)
        lock = folder.lock()
    else:
        RunFolder.check_new(config.runs_dir, plan.run_id)
        folder = RunFolder(Path(config.runs_dir) / plan.run_id)
    try:
        todo, kept, unreadable = [], [], []
        for c, t, k in keys:
            result = folder.read_result(c.manifest.name, t.slug, k) if plan.resume else None
            if not _runs_again(result, config):
                kept.append(result)
            elif t.slug in plan.unreadable:
                unreadable.append((c, t, k))
            else:
                todo.append((c, t, k, resume_point(result, folder.trial_dir(c.manifest.name, t.slug, k))))
        if plan.resume and not todo and not unreadable and not config.dry_run:
            summary = RunSummary(run_id=plan.run_id, run_dir=folder.root, planned=len(keys), skipped=len(kept))
            summary.configs = summarize_run(folder.root)
            return summary
        _step(progress, "starting the sandbox", checking=True)
        executor = make_executor(config.executor, sandbox=config.sandbox, workers=config.workers,
                                 most=max(1, len(todo)), notice=log)
        try:
            if config.dry_run:
                return RunSummary(
                    run_id=plan.run_id, run_dir=folder.root, planned=len(keys), skipped=len(kept), dry_run=True,
                    plan=[f"{c.manifest.name} {t.slug} trial-{k}" for c, t, k, _ in todo]
                    + [f"{c.manifest.name} {t.slug} trial-{k} (a suite error: {plan.unreadable[t.slug]})"
                       for c, t, k in unreadable],
                )
            summary = _run_trials(config, plan, folder, keys, todo, kept, unreadable, executor, log, progress)
        finally:
            executor.close()
    finally:
        if lock is not None:
            lock.release()
    return summary


def _run_trials(config: RunConfig, plan: RunPlan, folder: RunFolder, keys: list, todo: list, kept: list,
                unreadable: list, executor, log: Log, progress) -> RunSummary:
    lock = None
    try:
        if todo:
            # The agent's environment on every host now (Aider's, once per version), before any folder exists.
            _step(progress, f"getting the {plan.profile.agent} agent ready")
            executor.each_host(_agent_ready, plan.profile)
        if plan.resume:
            manifest = folder.read_manifest()
        else:
            folder = RunFolder.create(config.runs_dir, plan.run_id)
            lock = folder.lock()
            manifest = _manifest(plan, config, executor.facts)
            write_record(folder.root / PROFILE_FILE, plan.profile)
            write_record(folder.root / CONTRACT_FILE, plan.contract)
            for c in plan.configs:
                if c.contract is not plan.contract:
                    write_record(folder.root / config_contract_file(c.manifest.name), c.contract)
        manifest.executor, manifest.workers = executor.name, executor.slots
        folder.write_manifest(manifest)

        summary = RunSummary(run_id=plan.run_id, run_dir=folder.root, planned=len(keys), skipped=len(kept))
        if progress is not None:
            progress.begin(plan, total=len(keys), done=kept)
        limiters = {}
        if config.requests_per_minute is not None:
            for name in {_paced_as(c.model) for c in plan.configs} - {None}:
                limiters[name] = executor.limiter(name, config.requests_per_minute)
        simulators = {c.manifest.name: _simulator(c.model, plan) for c in plan.configs if plan.feedback == "simulated"}
        jobs = [_job(plan, folder, c, task, k, resume, limiters, simulators) for c, task, k, resume in todo]
        warming: list[threading.Thread] = []

        def finished(job: TrialJob, got: TrialResult | ShippedTrial) -> None:
            if isinstance(got, ShippedTrial):
                RunFolder.write_trial(job.trial_dir, got.files, len(job.resume.rounds) if job.resume else 0)
                got = got.result
            summary.ran += 1
            if progress is not None:
                progress.advance(got)
            if not warming and len(jobs) - summary.ran < executor.slots:
                # A slot is idle until the run ends: the summary's imports (about a second
                # of pandas) take its core now instead of the end of the run. Not a daemon:
                # a daemon thread stopped at exit while it holds an import lock deadlocks
                # the interpreter's last imports (seen after an interrupt under Ray).
                warming.append(threading.Thread(target=_import_summary_stack, name="summary-imports"))
                warming[0].start()

        def lost(job: TrialJob, why: str) -> None:
            spec = job.spec
            log(f"{spec.config} {spec.task.slug} trial-{spec.trial}: {why}; recorded as an infrastructure error")
            finished(job, lost_trial(job, why))

        for slug in dict.fromkeys(t.slug for _, t, _ in unreadable):
            log(f"task {slug} is recorded as a suite error in every trial, the run goes on: {plan.unreadable[slug]}")
        for c, task, k in unreadable:
            job = _job(plan, folder, c, task, k, None, limiters, simulators)
            summary.ran += 1
            got = lost_trial(job, plan.unreadable[task.slug], InfraKind.suite)
            if progress is not None:
                progress.advance(got)

        bad: list[BaseException] = []

        def failed(job: TrialJob, failure: UnitFailure) -> None:
            if failure.record.kind == BAD_INPUT:
                bad.append(failure.error)  # about the run, not the trial: said once every trial has ended
                return
            spec = job.spec
            log(f"{spec.config} {spec.task.slug} trial-{spec.trial}: {failure.record.message}; recorded as an "
                "infrastructure error")
            finished(job, ended_trial(job, failure.record))

        try:
            executor.run(jobs, run_job, label=plan.run_id, on_result=finished, on_lost=lost, on_failure=failed)
            if bad:
                raise bad[0]
        except KeyboardInterrupt:
            # The executor stopped handing out trials and ended the agents' waits; trials in
            # flight finished their step and closed their sandboxes.
            log(f"stopping: finished trials are kept; continue with `harness run --resume {plan.run_id}"
                + (f" --runs-dir {config.runs_dir}`" if Path(config.runs_dir) != Path("runs") else "`"))
            raise
        manifest.finished_at = utc_now()
        folder.write_manifest(manifest)
        summary.configs = summarize_run(folder.root)
    finally:
        if lock is not None:
            lock.release()
    return summary


def _job(plan: RunPlan, folder: RunFolder, c: PlannedConfig, task: Task, k: int, resume: ResumePoint | None,
         limiters: dict, simulators: dict) -> TrialJob:
    trial_dir = folder.trial_dir(c.manifest.name, task.slug, k)
    spec = TrialSpec(run_id=plan.run_id, config=c.manifest.name, suite=plan.suite_name, task=task, trial=k,
                     rounds=plan.rounds, model=c.manifest.model, litellm_model=c.model.litellm_model,
                     api_base=c.model.api_base, api_key=c.model.api_key(), contract=c.contract,
                     sampling=plan.sampling, feedback=plan.feedback, simulator=simulators.get(c.manifest.name),
                     kind=plan.kind)
    name = _paced_as(c.model) if _paced_as(c.model) in limiters else None
    return TrialJob(spec=spec, trial_dir=trial_dir, resume=resume,
                    kept=RunFolder.kept_files(trial_dir, len(resume.rounds)) if resume is not None else {},
                    profile=plan.profile, builtin=c.model if c.model.builtin else None, drivers_log=folder.root / "drivers.log",
                    limiter=limiters.get(name), limiter_name=name)


def _paced_as(model: ModelSpec) -> str | None:
    """Whose rate limit a model's requests count against: its server's, else its hosted
    provider's; gold and mutant, served by the harness itself, have none."""
    if model.builtin:
        return None
    return model.api_base or model.provider or model.litellm_model
