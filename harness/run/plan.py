"""A run's plan: every configuration (a model, with the run's agent profile and prompt
contract) and task resolved, and everything checkable checked before any work; a resumed
run's plan is its manifest's, checked against what it ran with."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
import datetime
from dataclasses import dataclass, field
from pathlib import Path

from ..suite import Suite, find_suite
from ..predict.prompt import simulation_hash
from ..predict.public import public_cases
from ..predict.rlef import SELF_RLEF, protocol_hash, simulates
from ..adapter_card import card_files, find_card, verify_card
from ..agents.base import AgentProfile
from ..agents.registry import load_profile, read_profile
from ..contract import PromptContract, load_contract, run_contract
from ..errors import BadInput
from ..hashing import sha256_json
from ..kinds import TrialKind, kinds_with, make_kind
from ..kinds.repair import RepairKind
from ..languages import layout_named
from ..languages.registry import language_named
from ..languages.base import Layout
from ..models import ModelSpec, check_access, config_name, parse_model, read_models_file
from ..records import ConfigManifest, FeedbackMode, RunRegistration, Sampling, TrialKindName
from ..registered_bar import read_registration
from ..store import CONTRACT_FILE, PROFILE_FILE, RunFolder, new_run_id, utc_now
from ..task import Task
from .config import FIXED_ON_RESUME, RunConfig, split_contract


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
    written: dict[str, datetime.date] = field(default_factory=dict)  # the tasks' dates (suite.toml [written])
    registration: RunRegistration | None = None  # --preregistered: recorded in the manifest as it is written

    def trial_keys(self) -> list[tuple[PlannedConfig, Task, int]]:
        """Trial-major, so an early stop leaves every task and config with some results."""
        return [(c, t, k) for k in range(1, self.trials + 1) for t in self.tasks for c in self.configs]


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
    if spec.adapter not in card_files():
        return {"adapter": spec.adapter}
    card, path = find_card(spec.adapter)
    verify_card(card, path)
    trained = card.training.trained_on_tasks if card.training else None
    return {"adapter": spec.adapter, "adapter_hash": card.sha256, "trained_on_tasks": trained,
            "training_cutoff": card.training_cutoff or spec.training_cutoff}


def feedback_hash(contract: PromptContract, feedback: FeedbackMode, suite: Suite) -> str | None:
    """What a feedback mode says besides the code: simulated, the contract's template and the
    prompt the model simulates with (in the terms of the suite's language, of which it
    takes one); Self-RLEF, its own prompts (predict/rlef.py); real, nothing beyond the contract."""
    if feedback == "real":
        return None
    form = language_named(suite.language).prediction_terms().answer
    if feedback == "simulated":
        return sha256_json({"simulated_feedback": contract.simulated_feedback, "prediction": simulation_hash(form)})
    return protocol_hash(form)


def _config_manifest(name: str, spec: ModelSpec, profile: AgentProfile, contract: PromptContract,
                     sampling: Sampling, feedback: FeedbackMode, suite: Suite) -> ConfigManifest:
    return ConfigManifest(
        name=name, model=spec.name, api_base=spec.api_base, api_key_env=spec.api_key_env, sampling=sampling,
        agent_profile=profile.name, agent_hash=profile.content_hash, aider_version=profile.agent_version,
        edit_format=profile.edit_format, contract=contract.name, contract_hash=contract.content_hash,
        contract_texts_file=contract.texts_file, contract_texts_sha256=contract.texts_sha256,
        feedback=feedback, feedback_hash=feedback_hash(contract, feedback, suite),
        **{"training_cutoff": spec.training_cutoff, **_adapter_facts(spec)},
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


def _kind_contract(name: str, kind: TrialKindName, checkout: Path | None, layouts: list[Layout]) -> PromptContract:
    """The contract `name` names, in the suite's language's own version where it has one; a
    suite of several languages runs one contract, so their versions must be the same."""
    versions = sorted({layout.contract(name) for layout in layouts})
    if len(versions) > 1:
        raise BadInput(f"prompt contract {name} has a version of its own in some of the suite's languages "
                       f"({', '.join(versions)}); a suite of several languages runs one: name it with --contract")
    contract = load_contract(versions[0]).with_checkout_texts(checkout)
    if contract.kind != kind:
        raise BadInput(f"prompt contract {contract.name} is for {contract.kind} trials, not for --kind {kind}")
    return contract


def make_plan(config: RunConfig) -> RunPlan:
    """Resolve and check everything before any work: bad input raises BadInput here."""
    if config.resume:
        given = sorted(f for f in FIXED_ON_RESUME if f in config.model_fields_set)
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
    layouts = [layout_named(lang, str(suite.manifest_path)) for lang in suite.languages]
    contract = _kind_contract(config.contract or kind.default_contract(profile.contract), config.kind, checkout, layouts)
    if config.run_id is not None and (not config.run_id.strip() or "/" in config.run_id or config.run_id.startswith(".")):
        raise BadInput(f"--run-id {config.run_id!r} is not a folder name")
    unreadable = unreadable_tasks(tasks)
    for task in tasks:
        if task.slug not in unreadable:
            kind.chat_files(task)  # a task this kind cannot run is refused now (a test writer's needs one test file)
    if config.feedback in SELF_RLEF and not profile.fresh_prompts:
        raise BadInput(f"--feedback {config.feedback} needs an agent that asks each step with a fresh prompt "
                       f"(--agent direct), not profile {profile.name}")
    if config.feedback != "real" and not kind.simulated_feedback:
        raise BadInput(f"--feedback {config.feedback} is for {' and '.join(kinds_with('simulated_feedback'))} trials (the model "
                       f"predicts its code's test results), not --kind {config.kind}")
    if config.feedback != "real":
        bare = next((t.slug for t in tasks if t.slug not in unreadable and not public_cases(t)), None)
        if bare is not None:
            raise BadInput(f"--feedback {config.feedback}: task {bare} has no public test case to predict or run "
                           "(predict/public.py reads its test file's cases)")

    configs: list[PlannedConfig] = []
    taken: set[str] = set()
    models = model_specs(config)
    check_models([spec for spec, _ in models])
    for spec, own in models:
        own_contract = _kind_contract(own, config.kind, checkout, layouts) if own else contract
        cname = config_name(spec, taken, own_contract.name if own else "")
        taken.add(cname)
        if config.feedback == "simulated" and not own_contract.simulated_feedback:
            raise BadInput(f"--feedback simulated: prompt contract {own_contract.name} has no simulated_feedback template")
        manifest = _config_manifest(cname, spec, profile, own_contract, config.sampling, config.feedback, suite)
        configs.append(PlannedConfig(manifest, spec, own_contract))
    builtin = next((c.model for c in configs if c.model.builtin), None)
    if builtin is not None and profile.edit_format not in ("whole", "diff"):
        raise BadInput(f"the {builtin.name} model has no answers in edit format {profile.edit_format!r}")
    if simulates(config.feedback) and builtin is not None:
        raise BadInput(f"--feedback {config.feedback}: the {builtin.name} model answers with code, not predictions")
    mutant = next((c.model for c in configs if c.model.kind == "mutant"), None)
    if mutant is not None and not kind.mutant_answers:
        raise BadInput(f"--model {mutant.name} answers {' and '.join(kinds_with('mutant_answers'))} trials; "
                       f"--kind {config.kind} has gold")
    return RunPlan(
        registration=_registration(config.preregistered, configs, kind),
        written={t.slug: suite.written[t.slug] for t in tasks if t.slug in suite.written},
        run_id=config.run_id or new_run_id(), suite_name=suite.name, suite_version=suite.version,
        suite_hash=suite.content_hash, suite_path=suite.path, tasks=tasks, configs=configs, profile=profile,
        contract=contract, trials=config.trials, rounds=config.rounds, sampling=config.sampling, resume=False,
        feedback=config.feedback,
        kind=kind, unseen_tasks=[t.slug for t in tasks if t.slug in suite.unseen_tasks], unreadable=unreadable,
    )


def _registration(path: Path | None, configs: list[PlannedConfig], kind: TrialKind) -> RunRegistration | None:
    """--preregistered FILE, checked against this run: intact, and naming its configs and a
    metric its trials have. Recorded as the manifest is written, so before the first trial."""
    if path is None:
        return None
    registration = read_registration(path)
    bar = registration.bar
    names = [c.manifest.name for c in configs]
    # NEW is what the bar is about, so it runs here, after the registration; BASE may be a
    # baseline run before it (compare checks that the configs it is given are the bar's).
    if bar.new not in names:
        raise BadInput(f"{path}: the bar's NEW config {bar.new} is not one of this run's ({', '.join(names)})")
    if bar.metric != "solved" and bar.metric not in kind.metrics:
        raise BadInput(f"{path}: the bar judges {bar.metric}, which --kind {kind.name} trials do not have")
    return RunRegistration(registration=registration, path=str(Path(path).absolute()), recorded_at=utc_now())


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
        if feedback_hash(contract, cfg.feedback, suite) != cfg.feedback_hash:
            raise BadInput(f"{cfg.feedback} feedback (its prompts or template) changed since run {m.run_id} started")
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

