"""`harness loop`: the closed loop. Evaluate the current model on a suite, build a repair
curriculum from what it failed, train GRPO from the current adapter, evaluate the new
checkpoint on the same suite, and again, keeping a lineage of every checkpoint.

Each stage calls the function its own command calls: `harness run` (runner.run),
`harness curriculum build|synth` (curriculum.build_from_runs, curriculum.synthesize),
`harness train grpo` (train.grpo.train_grpo, which publishes NAME@iterK cards), and
`harness serve` (serve.launch.start_server / stop_server) around every evaluation, so the
GPU is free while training. What the loop adds is the order of the stages, resumption
after a crash, the lineage record, and the pre-registered bar.

    <runs>/loops/<id>/lineage.json        Lineage: the config and one record per iteration
    <runs>/loops/<id>/curricula/<name>/   the curricula (suites) the loop built
    <runs>/<id>-eval<K>/                  iteration K's evaluation (an ordinary run)
    <runs>/train/<id>-it<K>/              iteration K's training run; its adapter is <id>-it<K>

Iteration 0 evaluates the starting model (the base, or --init-adapter). Iteration K >= 1
builds its curriculum from iteration K-1's evaluation, trains adapter <id>-it<K> from
iteration K-1's adapter, evaluates it, and checks the bar against iteration K-1.

Resumption: lineage.json is rewritten after every stage; a stage that was cut short is run
again through its own resumption (a run's `--resume` reruns only unfinished trials, a
training run continues from its last checkpoint, a curriculum is written whole or not at
all), and a server the loop started and could not stop is stopped first."""

from __future__ import annotations

import re
import shutil
import time
import tomllib
from datetime import datetime
from pathlib import Path
from typing import Any, Callable, Literal

from pydantic import Field, ValidationError

from . import __version__
from .curriculum.taxonomy import FailureKind
from .errors import BadInput, HarnessError
from .records import Record, Sampling
from .train.config import TrainConfig

SCHEMA_VERSION = 1
LOOPS_DIR = "loops"
LINEAGE_FILE = "lineage.json"
_ID = re.compile(r"[a-z0-9][a-z0-9_.-]*")

Log = Callable[[str], None]
Stage = Literal["curriculum", "train", "eval", "bar"]


class LoopIncomplete(HarnessError):
    """A stage ended without finishing its work (trials left with infrastructure errors);
    `harness loop --resume` continues it."""


# --- configuration ------------------------------------------------------------------------


class EvalSettings(Record):
    """How every checkpoint is evaluated: `harness run`'s options."""

    rounds: int = Field(2, ge=1, le=10)
    workers: int | None = Field(None, ge=1)
    agent: str = "aider-whole"
    contract: str = "original"
    sampling: Sampling = Field(default_factory=Sampling)
    sandbox: str = "auto"


class CurriculumSettings(Record):
    """`harness curriculum build`'s options (and synth's, for the first iteration)."""

    synth_first: bool = Field(False, description="add repair tasks made from mutants of the references in iteration 1")
    max_per_task: int = Field(4, ge=1)
    failure_kinds: list[FailureKind] | None = None
    seed: int = 0
    controls: int = Field(2, ge=0)
    mutants_per_task: int = Field(8, ge=0, description="build: mutants screened per task to find the controls")
    synth_mutants_per_task: int = Field(24, ge=1, description="synth: mutants screened per task as starting points")
    contract: str = "repair"
    sandbox: str = "auto"
    workers: int | None = Field(None, ge=1)
    run_timeout_s: float = Field(10.0, gt=0)


class ServeSettings(Record):
    """`harness serve`'s options for the server each evaluation starts and stops."""

    backend: Literal["vllm", "local"] = "vllm"
    runtime: Literal["auto", "process", "container"] = "auto"
    device: str = "auto"
    host: str = "127.0.0.1"
    port: int = 8000
    gpus: int = Field(1, ge=1)
    served_name: str | None = None
    max_lora_rank: int | None = None
    vllm_bin: str | None = None
    image: str = "vllm/vllm-openai:latest"
    health_timeout_s: float = Field(900.0, gt=0)


class LoopConfig(Record):
    """Everything a loop does; stored in its lineage, so --resume needs nothing else. A
    TOML file (`--config`) holds any of these keys and the tables eval, curriculum, serve
    and train (train takes the tables of `harness train --config`: lora, grpo, runtime)."""

    schema_version: Literal[1] = SCHEMA_VERSION
    suite: str
    base: str
    init_adapter: str | None = None
    iterations: int = Field(ge=1)
    trials: int = Field(ge=1)
    tasks: list[str] | None = None
    hold_out: list[str] = Field(default_factory=list, description="suite tasks kept out of every curriculum")
    bar: float | None = Field(None, description="minimum gain in tasks over the previous iteration, pre-registered")
    bar_round: Literal[1, 2] = 1
    stop_after_failures: int = Field(2, ge=1, description="stop when the bar fails this many iterations in a row")
    eval: EvalSettings = Field(default_factory=EvalSettings)
    curriculum: CurriculumSettings = Field(default_factory=CurriculumSettings)
    serve: ServeSettings = Field(default_factory=ServeSettings)
    train: TrainConfig = Field(default_factory=TrainConfig)


def _first_error(exc: ValidationError, source: str) -> str:
    first = exc.errors()[0]
    where = ".".join(str(p) for p in first["loc"]) or "config"
    what = ("missing (give it as an option or in the config file)" if first["type"] == "missing"
            else "unknown setting" if first["type"] == "extra_forbidden" else first["msg"].lower())
    return f"{source}: {where}: {what}"


def load_loop_config(path: Path | None, given: dict[str, Any]) -> LoopConfig:
    """The TOML file's settings, then the options given on the command line (top-level
    keys, and a `serve` dict merged into the file's serve table)."""
    data: dict[str, Any] = {}
    if path is not None:
        try:
            data = tomllib.loads(Path(path).read_text())
        except OSError as exc:
            raise BadInput(f"{path}: {exc.strerror}") from None
        except tomllib.TOMLDecodeError as exc:
            raise BadInput(f"{path}: not valid TOML ({exc})") from None
    for key, value in given.items():
        if isinstance(value, dict):
            data[key] = {**data.get(key, {}), **value}
        else:
            data[key] = value
    try:
        return LoopConfig.model_validate(data)
    except ValidationError as exc:
        raise BadInput(_first_error(exc, str(path) if path else "loop")) from None


def _resolved(ref: str) -> str:
    """A file or folder that exists here, as an absolute path (a resumed loop may run from
    another folder); anything else (a name, a hub id) as given."""
    path = Path(ref).expanduser()
    return str(path.resolve()) if path.exists() else ref


def prepare(config: LoopConfig) -> LoopConfig:
    """Check everything that can be checked before any work, and pin local paths."""
    from .adapter_card import find_card
    from .agents.aider import load_profile
    from .contract import load_contract
    from .curriculum.candidates import HoldOut
    from .suite import find_suite
    from .train.model import base_ref

    suite = find_suite(config.suite)
    tasks = suite.select(config.tasks)
    ids = {f"{suite.name}/{t.slug}" for t in tasks}
    held = HoldOut(config.hold_out)
    for name in held.names:
        if not any(tid in HoldOut([name]) for tid in ids):
            raise BadInput(f"--hold-out {name}: suite {suite.name} has no such task among those evaluated")
    if all(tid in held for tid in ids):
        raise BadInput("every evaluated task is held out: no curriculum could be built")
    load_profile(config.eval.agent)
    load_contract(config.eval.contract)
    load_contract(config.curriculum.contract)
    base = base_ref(config.base)
    if config.init_adapter:
        card, _ = find_card(config.init_adapter)
        if base_ref(card.base_model) != base:
            raise BadInput(f"--init-adapter {config.init_adapter} was trained on {card.base_model!r}, not {base!r}")
    if config.serve.backend == "local" and config.serve.runtime == "container":
        raise BadInput("serve: the local backend runs as a process; runtime container is for vLLM")
    suite_ref = str(suite.path) if suite.origin == "path" else suite.name
    return config.model_copy(update={
        "suite": suite_ref, "base": base,
        "eval": config.eval.model_copy(update={"agent": _resolved(config.eval.agent),
                                               "contract": _resolved(config.eval.contract)}),
        "curriculum": config.curriculum.model_copy(update={"contract": _resolved(config.curriculum.contract)}),
    })


# --- the lineage record --------------------------------------------------------------------


class CurriculumRef(Record):
    name: str
    path: str
    made_from: Literal["runs", "synth"]
    content_hash: str
    repair_tasks: int
    source_tasks: list[str]


class ScopeCheck(Record):
    """NEW minus the previous iteration on one group of tasks: the paired task bootstrap
    of `harness compare`."""

    scope: Literal["held-in", "held-out"]
    tasks: list[str]
    before: float
    after: float
    difference: float
    low: float
    high: float
    p_value: float
    passed: bool


class BarCheck(Record):
    delta: float
    round: Literal[1, 2]
    against: int                # the iteration compared with
    scopes: list[ScopeCheck]
    passed: bool                # every scope with tasks cleared the bar


class ServerRef(Record):
    """A server the loop started: stopped again after its evaluation, or by --resume
    when the loop died first. `since` tells it apart from servers started before it."""

    port: int
    since: str
    pid: int | None = None
    container_id: str | None = None


class Iteration(Record):
    index: int
    adapter: str | None = None          # the checkpoint evaluated (None: the base model)
    parent: str | None = None           # the adapter training started from
    curricula: list[CurriculumRef] = Field(default_factory=list)
    train_data: str | None = None       # the curriculum folder or JSONL trained on
    train_run: str | None = None
    checkpoints: list[str] = Field(default_factory=list)  # NAME@iterK adapters of the training run
    dataset_hash: str | None = None
    trained_on_tasks: list[str] = Field(default_factory=list)
    eval_run: str | None = None
    eval_model: str | None = None
    first_round_mean: float | None = None
    two_round_mean: float | None = None
    bar: BarCheck | None = None
    done: list[Stage] = Field(default_factory=list)
    seconds: dict[Stage, float] = Field(default_factory=dict)  # each stage's wall time (its last attempt)
    started_at: str
    finished_at: str | None = None

    def stages(self) -> list[Stage]:
        return ["eval"] if self.index == 0 else ["curriculum", "train", "eval", "bar"]

    @property
    def label(self) -> str:
        """The checkpoint's name in reports."""
        return self.adapter or "base"


class Lineage(Record):
    schema_version: Literal[1] = SCHEMA_VERSION
    loop_id: str
    config: LoopConfig
    harness_version: str = __version__
    command_line: list[str] = Field(default_factory=list)
    created_at: str
    updated_at: str
    status: Literal["running", "finished", "stopped"] = "running"
    stop_reason: str | None = None
    server: ServerRef | None = None
    iterations: list[Iteration] = Field(default_factory=list)

    def evaluated(self) -> list[Iteration]:
        return [it for it in self.iterations if "eval" in it.done]


def loop_dir(runs_dir: Path, loop_id: str) -> Path:
    return Path(runs_dir) / LOOPS_DIR / loop_id


def lineage_path(ref: str, runs_dir: Path = Path("runs")) -> Path:
    """A loop by id (under runs_dir), by its folder, or by its lineage.json."""
    path = Path(ref)
    for candidate in (path, path / LINEAGE_FILE, loop_dir(runs_dir, ref) / LINEAGE_FILE):
        if candidate.is_file() and candidate.name == LINEAGE_FILE:
            return candidate
    raise BadInput(f"no loop {ref!r} (no {loop_dir(runs_dir, ref) / LINEAGE_FILE})")


def read_lineage(ref: str, runs_dir: Path = Path("runs")) -> Lineage:
    path = lineage_path(ref, runs_dir)
    try:
        return Lineage.model_validate_json(path.read_bytes())
    except ValidationError as exc:
        raise BadInput(_first_error(exc, str(path))) from None


def _now() -> str:
    from .store import utc_now

    return utc_now()


# --- the pre-registered bar ----------------------------------------------------------------


def held_out_tasks(hold_out: list[str], tasks, infos) -> set[str]:
    """The tasks (slugs) among `tasks` that --hold-out names, by slug or as <suite>/<slug>
    of the suite the configs (outcomes.ConfigInfo) recorded."""
    from .curriculum.candidates import HoldOut

    held = HoldOut(hold_out)
    suites = {(i.suite or "").split(" ")[0] for i in infos}
    return {t for t in tasks if any(f"{s}/{t}" in held for s in suites)}


def bar_check(before, after, hold_out: list[str], delta: float, round_no: int, against: int,
              resamples: int | None = None, seed: int | None = None) -> BarCheck:
    """Compare two evaluations (Outcomes of one config each) on held-in and held-out
    tasks separately, with compare's paired statistics; a scope clears the bar when the
    lower bound of its gain's interval is at least `delta` (stats.clears_bar). A scope with
    no counted outcome in the round fails."""
    from . import stats

    (b_name,), (a_name,) = list(before.configs), list(after.configs)
    b = stats.task_counts(before.frame)
    a = stats.task_counts(after.frame)
    b = b.loc[b_name] if len(b) else b
    a = a.loc[a_name] if len(a) else a
    shared = sorted(set(b.index) & set(a.index))
    if not shared:
        raise BadInput(f"iterations {against} and {against + 1} share no task with finished trials")
    held = held_out_tasks(hold_out, shared, [before.configs[b_name], after.configs[a_name]])
    groups = [("held-in", [t for t in shared if t not in held]), ("held-out", [t for t in shared if t in held])]
    scopes = []
    for scope, tasks in groups:
        if not tasks:
            continue
        found = [d for d in stats.paired_differences(b.loc[tasks], a.loc[tasks], "tasks", resamples or stats.RESAMPLES,
                                                     stats.SEED if seed is None else seed) if d.round == round_no]
        if not found:
            raise BadInput(f"iterations {against} and {against + 1}: no {scope} task has a counted outcome "
                           f"in round {round_no}")
        d = found[0]
        scopes.append(ScopeCheck(scope=scope, tasks=tasks, before=d.base, after=d.new, difference=d.difference,
                                 low=d.interval[0], high=d.interval[1], p_value=d.p_value,
                                 passed=stats.clears_bar(d, delta)))
    return BarCheck(delta=delta, round=round_no, against=against, scopes=scopes, passed=all(s.passed for s in scopes))


def failures_in_a_row(iterations: list[Iteration]) -> int:
    """Bar failures at the end of the lineage, counted back to the last pass."""
    n = 0
    for it in reversed([it for it in iterations if it.bar is not None]):
        if it.bar.passed:
            break
        n += 1
    return n


# --- the loop --------------------------------------------------------------------------------


class Loop:
    def __init__(self, lineage: Lineage, runs_dir: Path, log: Log, console=None,
                 progress: Callable[[], Any] | None = None):
        """`progress` makes a fresh progress display for each evaluation (see runner.run)."""
        from rich.console import Console

        self.lineage = lineage
        self.config = lineage.config
        self.runs_dir = Path(runs_dir)
        self.folder = loop_dir(runs_dir, lineage.loop_id)
        self.log = log
        self.console = console or Console(stderr=True)
        self.progress = progress

    @property
    def id(self) -> str:
        return self.lineage.loop_id

    def save(self) -> None:
        from .fs import write_record

        self.lineage.updated_at = _now()
        write_record(self.folder / LINEAGE_FILE, self.lineage)

    def say(self, it: Iteration, message: str) -> None:
        self.log(f"loop {self.id} · iteration {it.index}: {message}")

    # -- driving ---------------------------------------------------------------------------

    def run(self) -> Lineage:
        self._stop_leftover_server()
        if not self.lineage.iterations:
            self.lineage.iterations.append(Iteration(index=0, adapter=self.config.init_adapter, started_at=_now()))
            self.save()
        while self.lineage.status == "running":
            it = self.lineage.iterations[-1]
            for stage in it.stages():
                if stage not in it.done:
                    began = time.monotonic()
                    getattr(self, f"_{stage}")(it)
                    it.seconds[stage] = round(time.monotonic() - began, 1)
                    it.done.append(stage)
                    self.save()
                    if self.lineage.status != "running":
                        break
            it.finished_at = it.finished_at or _now()
            if self.lineage.status == "running":
                if it.index >= self.config.iterations:
                    self.lineage.status = "finished"
                else:
                    self.lineage.iterations.append(Iteration(index=it.index + 1, parent=it.adapter, started_at=_now()))
            self.save()
        return self.lineage

    def _stop(self, it: Iteration, reason: str) -> None:
        self.lineage.status = "stopped"
        self.lineage.stop_reason = f"iteration {it.index}: {reason}"
        self.say(it, f"stopping: {reason}")

    def _stop_leftover_server(self) -> None:
        """A server this loop started and never stopped (it was killed): stop it now."""
        ref = self.lineage.server
        if ref is None:
            return
        from .serve.endpoint import load_records
        from .serve.launch import stop_server

        since = datetime.fromisoformat(ref.since).replace(microsecond=0)
        for record in load_records():
            if ref.pid is not None:
                ours = record.pid == ref.pid
            elif ref.container_id is not None:
                ours = record.container_id == ref.container_id
            else:  # killed while it started: the record written on the port since then
                ours = datetime.fromisoformat(record.started_at) >= since
            if record.port == ref.port and ours:
                self.log(f"loop {self.id}: stopping the server it left on port {record.port}")
                stop_server(record)
        self.lineage.server = None
        self.save()

    # -- stages ----------------------------------------------------------------------------

    def _curriculum(self, it: Iteration) -> None:
        from .curriculum import BuildConfig, SynthConfig, build_from_runs, synthesize
        from .curriculum.exports import read_manifest

        c, cfg = self.config.curriculum, self.config
        source = self.lineage.iterations[it.index - 1]
        root = self.folder / "curricula"
        common = dict(root=root, max_per_task=c.max_per_task, failure_kinds=c.failure_kinds, seed=c.seed,
                      hold_out=cfg.hold_out, controls=c.controls, contract=c.contract, sandbox=c.sandbox,
                      workers=c.workers, run_timeout_s=c.run_timeout_s)
        jobs = [(f"{self.id}-c{it.index}", f"the failures of run {source.eval_run}", lambda name: build_from_runs(
            BuildConfig(runs=[str(self.runs_dir / source.eval_run)], runs_dir=self.runs_dir, out=name,
                        mutants_per_task=c.mutants_per_task, **common), notice=self.log))]
        if c.synth_first and it.index == 1:
            jobs.append((f"{self.id}-c1-synth", f"mutants of {cfg.suite}'s references", lambda name: synthesize(
                SynthConfig(suite=cfg.suite, tasks=cfg.tasks, out=name, mutants_per_task=c.synth_mutants_per_task,
                            **common), notice=self.log)))
        refs = []
        for name, what, build in jobs:
            folder = root / name
            if not (folder / "manifest.json").is_file():  # written last: a folder without it is no curriculum
                self.say(it, f"curriculum {name} from {what}")
                built = build(name)
                s = built.manifest.summary
                if built.path is None:
                    self.say(it, f"no repair task kept from {what} ({s.candidates} candidates; dropped: "
                             + (", ".join(f"{k.value} {v}" for k, v in s.dropped.items()) or "none") + ")")
                    continue
            m = read_manifest(folder)
            refs.append(CurriculumRef(name=name, path=str(folder.resolve()), made_from=m.made_from,
                                      content_hash=m.content_hash, repair_tasks=len(m.repair_tasks),
                                      source_tasks=m.source_tasks))
            self.say(it, f"curriculum {name}: {len(m.repair_tasks)} repair tasks from {', '.join(m.source_tasks)} "
                     f"(hash {m.content_hash[:12]})")
        it.curricula = refs
        if not refs:
            self._stop(it, "no repair task was kept from the evaluation's failures; nothing to train on")
            return
        it.train_data = refs[0].path if len(refs) == 1 else str(self._joined(refs, root / f"{self.id}-c{it.index}.grpo.jsonl"))

    @staticmethod
    def _joined(refs: list[CurriculumRef], path: Path) -> Path:
        """One GRPO file over several curricula beside them: each row's task path made
        relative to their common folder. No manifest sits there, so training records the
        rows' own source tasks, the union of the curricula's."""
        from .train.data import load_grpo, write_jsonl

        rows = []
        for ref in refs:
            found, _, _ = load_grpo(ref.path)
            rows += [r.model_copy(update={"task_path": f"{ref.name}/{r.task_path}"}) for r in found]
        return write_jsonl(path, rows)

    def _train(self, it: Iteration) -> None:
        from .adapter_card import card_files, find_card
        from .train.checkpoints import RUN_FILE, TrainRun
        from .train.grpo import train_grpo

        out = f"{self.id}-it{it.index}"
        run_root = self.runs_dir / "train" / out
        if out not in card_files():  # the final adapter's card is the last thing training writes
            if (run_root / RUN_FILE).is_file():
                self.say(it, f"continuing training run {out} from its last checkpoint")
                train_grpo(out=out, runs_dir=self.runs_dir, resume=True, console=self.console)
            else:
                self.say(it, f"training {out} with GRPO from {it.parent or 'a new adapter on ' + self.config.base}")
                train_grpo(out=out, data=it.train_data, base=self.config.base, config=self.config.train,
                           init_adapter=it.parent, runs_dir=self.runs_dir, console=self.console)
        run = TrainRun.open(self.runs_dir, out)
        card, _ = find_card(out)
        if card.training is None or card.training.source_run != str(run.root):
            raise BadInput(f"adapter card {out} does not come from training run {run.root}; remove the card and resume")
        it.adapter, it.train_run = out, str(run.root)
        it.checkpoints = [n for n in run.published() if n != out]
        it.dataset_hash, it.trained_on_tasks = run.manifest.dataset_hash, run.manifest.trained_on_tasks

    def _eval(self, it: Iteration) -> None:
        from .runner import RunConfig, run
        from .serve.launch import LaunchOptions, spec_from_cards, start_server, stop_server

        cfg, e, s = self.config, self.config.eval, self.config.serve
        run_id = f"{self.id}-eval{it.index}"
        folder = self.runs_dir / run_id
        if folder.is_dir() and not (folder / "manifest.json").is_file():
            shutil.rmtree(folder)  # created, then killed before its manifest: it holds nothing
        spec = spec_from_cards(cfg.base, [it.adapter] if it.adapter else [], served_name=s.served_name, host=s.host,
                               port=s.port, gpus=s.gpus, max_lora_rank=s.max_lora_rank)
        options = LaunchOptions(backend=s.backend, runtime=s.runtime, device=s.device, vllm_bin=s.vllm_bin,
                                image=s.image, health_timeout_s=s.health_timeout_s)
        self.lineage.server = ServerRef(port=s.port, since=_now())
        self.save()
        try:
            record = start_server(spec, options, log=self.log)
        except BaseException:  # start_server stops what it started before it raises
            self.lineage.server = None
            self.save()
            raise
        self.lineage.server = ServerRef(port=s.port, since=self.lineage.server.since, pid=record.pid,
                                        container_id=record.container_id)
        self.save()
        model = f"local/{it.adapter}" if it.adapter else f"openai/{spec.base_name}"
        try:
            if (folder / "manifest.json").is_file():
                self.say(it, f"continuing evaluation {run_id} of {model}")
                config = RunConfig(resume=run_id, runs_dir=self.runs_dir, workers=e.workers, sandbox=e.sandbox)
            else:
                self.say(it, f"evaluating {model} on {cfg.suite}: {cfg.trials} trial(s) per task, run {run_id}")
                config = RunConfig(suite=cfg.suite, models=[model], api_base=None if it.adapter else record.api_base,
                                   tasks=cfg.tasks, trials=cfg.trials, rounds=e.rounds, workers=e.workers,
                                   agent=e.agent, contract=e.contract, sampling=e.sampling, sandbox=e.sandbox,
                                   runs_dir=self.runs_dir, run_id=run_id, command_line=self.lineage.command_line)
            summary = run(config, log=self.log, progress=self.progress() if self.progress else None)
        finally:
            stop_server(record)
            self.lineage.server = None
            self.save()
        c = summary.configs[0]
        if c.infra_errors or c.missing:
            raise LoopIncomplete(f"evaluation {run_id}: {c.infra_errors + c.missing} trial(s) did not finish "
                                 f"(infrastructure errors); `harness loop --resume {self.id}` reruns them")
        it.eval_run, it.eval_model = run_id, model
        two = c.two_round_mean if c.two_round_mean == c.two_round_mean else None  # nan: a one-round evaluation
        it.first_round_mean, it.two_round_mean = c.first_round_mean, two
        self.say(it, f"{it.label}: round 1 {c.first_round_mean:.2f}/{c.tasks}, two rounds "
                     + (f"{two:.2f}/{c.tasks}" if two is not None else "n/a"))

    def _bar(self, it: Iteration) -> None:
        from .outcomes import load_run

        cfg = self.config
        if cfg.bar is None:
            return
        prev = self.lineage.iterations[it.index - 1]
        it.bar = bar_check(load_run(self.runs_dir / prev.eval_run), load_run(self.runs_dir / it.eval_run),
                           cfg.hold_out, cfg.bar, cfg.bar_round, prev.index)
        for sc in it.bar.scopes:
            self.say(it, f"bar {cfg.bar:g} on {sc.scope} tasks: gain {sc.difference:+.2f} [{sc.low:.2f}, {sc.high:.2f}] "
                     f"-> {'PASS' if sc.passed else 'FAIL'}")
        failed = failures_in_a_row(self.lineage.iterations[: it.index + 1])
        if failed >= cfg.stop_after_failures and it.index < cfg.iterations:
            self._stop(it, f"the pre-registered bar ({cfg.bar:g} tasks, round {cfg.bar_round}) failed "
                           f"{failed} iterations in a row")


def start_loop(config: LoopConfig, *, runs_dir: Path = Path("runs"), loop_id: str | None = None,
               command_line: list[str] | None = None, log: Log | None = None, console=None,
               progress=None) -> Lineage:
    """A new loop: checked, its folder and lineage written, then run."""
    from .store import new_run_id

    config = prepare(config)
    loop_id = loop_id or new_run_id()
    if not _ID.fullmatch(loop_id):
        raise BadInput(f"--loop-id {loop_id!r}: use lowercase letters, digits, '.', '_' and '-'")
    folder = loop_dir(runs_dir, loop_id)
    if folder.exists():
        raise BadInput(f"{folder}: a loop with this id exists; continue it with --resume {loop_id}")
    folder.mkdir(parents=True)
    now = _now()
    lineage = Lineage(loop_id=loop_id, config=config, command_line=command_line or [], created_at=now, updated_at=now)
    loop = Loop(lineage, runs_dir, log or (lambda m: None), console, progress)
    loop.save()
    return loop.run()


def resume_loop(loop_id: str, *, runs_dir: Path = Path("runs"), log: Log | None = None, console=None,
                progress=None) -> Lineage:
    """Continue a loop from its lineage: the stage that was cut short, then the rest.
    `loop_id` may also be the loop's folder, which says where its runs are."""
    path = lineage_path(loop_id, runs_dir)
    runs_dir = path.parent.parent.parent
    lineage = read_lineage(str(path))
    if lineage.status != "running":
        (log or (lambda m: None))(f"loop {lineage.loop_id} has {lineage.status}"
                                  + (f" ({lineage.stop_reason})" if lineage.stop_reason else "") + "; nothing to do")
        return lineage
    return Loop(lineage, runs_dir, log or (lambda m: None), console, progress).run()
