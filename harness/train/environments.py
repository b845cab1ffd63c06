"""GRPO environments: the kinds of prompt one run can mix, each with its data file and its
judge (rewards.py).

    repair    grpo.jsonl (data.GrpoRow): repair a task; the verifier judges the files
    predict   grpo-predict.jsonl (predict.items.PredictGrpoRow): predict what a call
              produces; the exact-match rule judges the value
    tests     grpo-tests.jsonl (testwriting.export.TestsGrpoRow): write a task's test
              file; validity x kill rate judges the suite
    rlef      a repair curriculum given as `rlef:NAME`: repair a task in two turns, the
              second after its public tests ran on the first (multiturn.py); the verifier
              judges the final code

A run is given one or more data sets (curricula or output-prediction sets, by name, folder
or file). A folder or a name is whichever of the two files it holds; a file is a predict
set's when it is named like that export. Sets of one environment are pooled, and the
schedule (schedule.py) draws each update's prompts across environments by weight.

Every environment's rows reach the trainer in one form, `prompt`, `task_id`,
`environment` and `target`: the repair task's folder, what the prediction is compared
against, or the suite task and how its written suites are scored."""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Callable, Mapping, Sequence

from ..suite import find_suite
from ..errors import BadInput
from ..hashing import sha256_json
from ..kinds import DEFAULT_KIND, KINDS, KindName
from ..predict.items import PredictGrpoRow
from ..predict.prompt import FORMAT_VERSION
from ..testwriting.export import TestsGrpoRow
from .config import EnvironmentName, RuntimeSettings
from .data import DataSource, find_data_file, load_grpo, load_rows
from .multiturn import ENVIRONMENT as RLEF, RlefJudge
from .rewards import Judge, PredictJudge, PredictTarget, RepairJudge, TestsJudge, TestsTarget, make_verifier
from .schedule import draw, resolve_weights

@dataclass
class Environment:
    name: EnvironmentName
    records: list[dict]
    tasks: set[str]          # the suite tasks its prompts come from


@dataclass(frozen=True)
class TrainingData:
    environments: dict[str, Environment]
    data: list[str]              # every JSONL file, in the order given
    dataset_hash: str
    trained_on_tasks: list[str]
    curriculum: Path | None      # the curriculum folder, when the data is one curriculum's

    def sizes(self) -> dict[str, int]:
        return {name: len(env.records) for name, env in self.environments.items()}


def _repair(path: Path, environment: str = "repair") -> tuple[list[dict], set[str], DataSource]:
    rows, source, tasks = load_grpo(str(path))
    records = [{"prompt": [m.model_dump() for m in r.prompt], "task_id": r.task_id, "environment": environment,
                "target": str(tasks[r.task_path])} for r in rows]
    return records, {r.source_task for r in rows}, source


def _predict(path: Path) -> tuple[list[dict], set[str], DataSource]:
    rows, source = load_rows(path, PredictGrpoRow)
    old = next((r for r in rows if r.format_version != FORMAT_VERSION), None)
    if old is not None:
        # The judge reads answers in today's format; the prompt asked for the set's.
        raise BadInput(f"{path}: item {old.item_id} asks for answer format {old.format_version}, this harness reads "
                       f"format {FORMAT_VERSION} (rebuild the set with harness predict build)")
    records = [{"prompt": [m.model_dump() for m in r.prompt], "task_id": r.item_id, "environment": "predict",
                "target": PredictTarget(call=r.call, expected=r.expected, compare=r.compare).model_dump_json()}
               for r in rows]
    return records, {r.source_task for r in rows}, source


def _tests(path: Path) -> tuple[list[dict], set[str], DataSource]:
    rows, source = load_rows(path, TestsGrpoRow)
    tasks = {}
    for r in rows:
        if r.source_task not in tasks:
            # The suite where it was exported, else the suite of that name.
            suite, _, slug = r.source_task.rpartition("/")
            tasks[r.source_task] = find_suite(r.suite_path if Path(r.suite_path).is_dir() else suite).task(slug)
    records = [{"prompt": [m.model_dump() for m in r.prompt], "task_id": r.task_id, "environment": "tests",
                "target": TestsTarget(task_path=str(tasks[r.source_task].path), tests=r.tests).model_dump_json()}
               for r in rows]
    # The rewards build these tasks: their content is part of what the run trained on.
    hashed = sha256_json({"rows": source.dataset_hash, "tasks": {k: t.content_hash for k, t in sorted(tasks.items())}})
    return records, {r.source_task for r in rows}, replace(source, dataset_hash=hashed)


# Each kind's environment (harness/kinds/): how its data file is read, and its judge.
# `rlef` reads repair's data and judges with repair's verifier, in two turns.
_LOADERS: dict[str, Callable[[Path], tuple[list[dict], set[str], DataSource]]] = {
    "repair": _repair, "predict": _predict, "tests": _tests, RLEF: lambda path: _repair(path, RLEF)}
_JUDGES: dict[str, Callable[[RuntimeSettings], Judge]] = {
    "repair": lambda runtime: RepairJudge(make_verifier(runtime)), "predict": lambda runtime: PredictJudge(),
    "tests": TestsJudge, RLEF: lambda runtime: RlefJudge(make_verifier(runtime))}


def environment_of(path: Path) -> KindName:
    """The environment of a data file: the kind whose GRPO export it is named like, else
    repair's (a curriculum's file by any name)."""
    return next((k.name for k in KINDS.values() if k.name != DEFAULT_KIND and path.name.endswith(k.grpo_file)),
                DEFAULT_KIND)


def load_training_data(refs: Sequence[str]) -> TrainingData:
    """Every data set given, pooled by environment. Each set is loaded (and its tasks)
    here, so bad data fails before any model is loaded."""
    if not refs:
        raise BadInput("grpo needs at least one curriculum or output-prediction set")
    environments: dict[str, Environment] = {}
    sources: list[DataSource] = []
    given_as: list[str] = []  # each file as a resumed run gives it again: rlef's with its prefix
    for given in refs:
        ref = given.removeprefix(f"{RLEF}:")
        path = find_data_file(ref, *(k.grpo_file for k in KINDS.values())).resolve()
        if any(s.jsonl == path for s in sources):
            raise BadInput(f"{given}: {path} is given twice")
        name: EnvironmentName = environment_of(path)
        if ref != given:
            if name != DEFAULT_KIND:
                raise BadInput(f"{given}: {RLEF} trains on a repair curriculum, and {path.name} is {name}'s data")
            name = RLEF
        records, tasks, source = _LOADERS[name](path)
        env = environments.setdefault(name, Environment(name, [], set()))
        env.records += records
        env.tasks |= tasks
        sources.append(source)
        given_as.append(f"{RLEF}:{path}" if name == RLEF else str(path))
    return TrainingData(
        environments=environments,
        data=given_as,
        # One set keeps its own hash, so runs over one curriculum are recorded as before.
        dataset_hash=sources[0].dataset_hash if len(sources) == 1 else sha256_json([s.dataset_hash for s in sources]),
        trained_on_tasks=sorted({t for s in sources for t in s.trained_on_tasks}),
        curriculum=sources[0].curriculum if len(sources) == 1 else None,
    )


def schedule(data: TrainingData, weights: Mapping[str, float], prompts: int, seed: int) -> list[dict]:
    """The rows the run trains on, in order: `prompts` drawn across the environments."""
    sizes = data.sizes()
    return [data.environments[env].records[i] for env, i in draw(sizes, resolve_weights(sizes, weights), prompts, seed)]


def make_judges(data: TrainingData, runtime: RuntimeSettings) -> dict[str, Judge]:
    """A judge for each environment the run has data for (a predict-only run builds no
    verifier, so it needs no sandbox)."""
    return {name: _JUDGES[name](runtime) for name in data.environments}
