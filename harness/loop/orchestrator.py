"""The loop's orchestrator: runs each iteration's stages in order (see harness.loop),
saving the lineage after every stage, and resumes a loop that was cut short."""

from __future__ import annotations

import re
import shutil
import time
from datetime import datetime
from pathlib import Path
from typing import Any, Callable

from rich.console import Console

from ..adapter_card import card_files, find_card
from ..bar import bar_check
from ..curriculum import BuildConfig, SynthConfig, build_from_runs, synthesize
from ..curriculum.exports import read_manifest
from ..errors import BadInput, HarnessError
from ..fs import write_record
from ..outcomes import load_run
from ..run import run
from ..run.config import RunConfig
from ..serve.endpoint import load_records
from ..serve.launch import start_server, stop_server
from ..store import new_run_id, utc_now
from ..train.checkpoints import RUN_FILE, TrainRun
from ..train.data import load_grpo
from ..testwriting.export import GRPO_FILE as TESTS_GRPO_FILE, PREFERENCE_FILE, TestsExportManifest, export_suites
from ..train.dpo import train_dpo
from ..train.grpo import train_grpo
from ..train.sft import train_sft
from ..training_files import SFT_FILE, write_jsonl
from .config import LoopConfig, prepare
from .lineage import (
    LINEAGE_FILE, CurriculumRef, Iteration, Lineage, ServerRef, Stage, failures_in_a_row, lineage_path, loop_dir,
    read_lineage, runs_dir_of,
)

_ID = re.compile(r"[a-z0-9][a-z0-9_.-]*")

Log = Callable[[str], None]


class LoopIncomplete(HarnessError):
    """A stage ended without finishing its work (trials left with infrastructure errors);
    `harness loop --resume` continues it."""


class Loop:
    def __init__(self, lineage: Lineage, runs_dir: Path, log: Log, console=None,
                 progress: Callable[[], Any] | None = None):
        """`progress` makes a fresh progress display for each evaluation (see harness.run.run)."""
        self.lineage = lineage
        self.config = lineage.config
        self.runs_dir = Path(runs_dir)
        self.folder = loop_dir(runs_dir, lineage.loop_id)
        self.log = log
        self.console = console or Console(stderr=True)
        self.progress = progress
        self.steps: dict[Stage, Callable[[Iteration], None]] = {
            "curriculum": self._curriculum, "train": self._train, "eval": self._eval, "bar": self._bar}

    @property
    def id(self) -> str:
        return self.lineage.loop_id

    def save(self) -> None:
        self.lineage.updated_at = utc_now()
        write_record(self.folder / LINEAGE_FILE, self.lineage)

    def say(self, it: Iteration, message: str) -> None:
        self.log(f"loop {self.id} · iteration {it.index}: {message}")

    # -- driving ---------------------------------------------------------------------------

    def run(self) -> Lineage:
        self._stop_leftover_server()
        if not self.lineage.iterations:
            self.lineage.iterations.append(Iteration(index=0, adapter=self.config.init_adapter, started_at=utc_now()))
            self.save()
        while self.lineage.status == "running":
            it = self.lineage.iterations[-1]
            for stage in it.stages():
                if stage not in it.done:
                    began = time.monotonic()
                    self.steps[stage](it)
                    it.seconds[stage] = round(time.monotonic() - began, 1)
                    it.done.append(stage)
                    self.save()
                    if self.lineage.status != "running":
                        break
            it.finished_at = it.finished_at or utc_now()
            if self.lineage.status == "running":
                if it.index >= self.config.iterations:
                    self.lineage.status = "finished"
                else:
                    self.lineage.iterations.append(Iteration(index=it.index + 1, parent=it.adapter, started_at=utc_now()))
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
        c, cfg = self.config.curriculum, self.config
        source = self.lineage.iterations[it.index - 1]
        assert source.eval_run is not None  # an iteration's curriculum is made after the previous one's evaluation
        root = self.folder / "curricula"
        if cfg.kind == "tests":
            self._tests_export(it, source.eval_run, root)
            return
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

    def _tests_export(self, it: Iteration, eval_run: str, root: Path) -> None:
        """A test-writing loop's data: the last evaluation's suites exported (tests export),
        the trainer's file of it trained on."""
        x, name = self.config.export, f"{self.id}-c{it.index}"
        folder = root / name
        if not (folder / "manifest.json").is_file():  # written last: a folder without it holds no export
            self.say(it, f"exporting the suites of run {eval_run} as {name}")
            export_suites([self.runs_dir / eval_run], folder, min_kill=x.min_kill, margin=x.margin,
                          pairs_per_task=x.pairs_per_task, replace=True)
        m = TestsExportManifest.model_validate_json((folder / "manifest.json").read_text())
        trainer = self.config.trainer
        file, rows = {"sft": (SFT_FILE, m.sft), "dpo": (PREFERENCE_FILE, m.preference), "grpo": (TESTS_GRPO_FILE, m.grpo)}[trainer]
        it.curricula = [CurriculumRef(name=name, path=str(folder.resolve()), made_from="tests",
                                      content_hash=m.content_hash, repair_tasks=rows, source_tasks=m.source_tasks)]
        self.say(it, f"export {name}: {m.sft} SFT, {m.preference} preference, {m.grpo} GRPO rows from "
                     f"{', '.join(m.source_tasks)} (hash {m.content_hash[:12]}); {trainer} trains on {file}")
        if not rows:
            self._stop(it, f"the evaluation's suites gave no {file} row; nothing for {trainer} to train on")
            return
        it.train_data = str((folder / file).resolve())

    @staticmethod
    def _joined(refs: list[CurriculumRef], path: Path) -> Path:
        """One GRPO file over several curricula beside them: each row's task path made
        relative to their common folder. No manifest sits there, so training records the
        rows' own source tasks, the union of the curricula's."""
        rows = []
        for ref in refs:
            found, _, _ = load_grpo(ref.path)
            rows += [r.model_copy(update={"task_path": f"{ref.name}/{r.task_path}"}) for r in found]
        return write_jsonl(path, rows)

    def _train(self, it: Iteration) -> None:
        out = f"{self.id}-it{it.index}"
        run_root = self.runs_dir / "train" / out
        trainer = self.config.trainer
        if out not in card_files():  # the final adapter's card is the last thing training writes
            if (run_root / RUN_FILE).is_file() and trainer == "grpo":
                self.say(it, f"continuing training run {out} from its last checkpoint")
                train_grpo(out=out, runs_dir=self.runs_dir, resume=True, console=self.console)
            else:
                if (run_root / RUN_FILE).is_file():  # SFT and DPO keep no checkpoint to resume: begun again
                    shutil.rmtree(run_root)
                self.say(it, f"training {out} with {trainer.upper()} from "
                             f"{it.parent or 'a new adapter on ' + self.config.base}")
                assert it.train_data is not None  # the curriculum stage, done first, set it
                common: dict[str, Any] = dict(out=out, base=self.config.base, config=self.config.train, init_adapter=it.parent,
                              runs_dir=self.runs_dir, console=self.console)
                if trainer == "grpo":
                    train_grpo(data=[it.train_data], **common)
                else:
                    (train_sft if trainer == "sft" else train_dpo)(data=it.train_data, **common)
        run = TrainRun.open(self.runs_dir, out)
        card, _ = find_card(out)
        if card.training is None or card.training.source_run != str(run.root):
            raise BadInput(f"adapter card {out} does not come from training run {run.root}; remove the card and resume")
        it.adapter, it.train_run = out, str(run.root)
        it.checkpoints = [n for n in run.published() if n != out]
        it.dataset_hash, it.trained_on_tasks = run.manifest.dataset_hash, run.manifest.trained_on_tasks

    def _eval(self, it: Iteration) -> None:
        cfg, e, s = self.config, self.config.eval, self.config.serve
        run_id = f"{self.id}-eval{it.index}"
        folder = self.runs_dir / run_id
        if folder.is_dir() and not (folder / "manifest.json").is_file():
            shutil.rmtree(folder)  # created, then killed before its manifest: it holds nothing
        spec = s.spec(cfg.base, [it.adapter] if it.adapter else [])
        options = s.launch_options()
        self.lineage.server = ServerRef(port=s.port, since=utc_now())
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
                config = RunConfig(kind=cfg.kind, tests=cfg.tests, suite=cfg.suite, models=[model],
                                   api_base=None if it.adapter else record.api_base,
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
        cfg = self.config
        if cfg.bar is None:
            return
        prev = self.lineage.iterations[it.index - 1]
        assert prev.eval_run is not None and it.eval_run is not None  # the bar follows both evaluations
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
    config = prepare(config)
    loop_id = loop_id or new_run_id()
    if not _ID.fullmatch(loop_id):
        raise BadInput(f"--loop-id {loop_id!r}: use lowercase letters, digits, '.', '_' and '-'")
    folder = loop_dir(runs_dir, loop_id)
    if folder.exists():
        raise BadInput(f"{folder}: a loop with this id exists; continue it with --resume {loop_id}")
    folder.mkdir(parents=True)
    now = utc_now()
    lineage = Lineage(loop_id=loop_id, config=config, command_line=command_line or [], created_at=now, updated_at=now)
    loop = Loop(lineage, runs_dir, log or (lambda m: None), console, progress)
    loop.save()
    return loop.run()


def resume_loop(loop_id: str, *, runs_dir: Path = Path("runs"), log: Log | None = None, console=None,
                progress=None) -> Lineage:
    """Continue a loop from its lineage: the stage that was cut short, then the rest.
    `loop_id` may also be the loop's folder, which says where its runs are."""
    path = lineage_path(loop_id, runs_dir)
    runs_dir = runs_dir_of(path)
    lineage = read_lineage(str(path))
    if lineage.status != "running":
        (log or (lambda m: None))(f"loop {lineage.loop_id} has {lineage.status}"
                                  + (f" ({lineage.stop_reason})" if lineage.stop_reason else "") + "; nothing to do")
        return lineage
    return Loop(lineage, runs_dir, log or (lambda m: None), console, progress).run()
