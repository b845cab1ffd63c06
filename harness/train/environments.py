"""GRPO environments: the kinds of prompt one run can mix, each with its data file and its
judge (rewards.py).

    repair    grpo.jsonl (data.GrpoRow): repair a task; the verifier judges the files
    predict   grpo-predict.jsonl (predict.items.PredictGrpoRow): predict what a call
              produces; the exact-match rule judges the value

A run is given one or more data sets (curricula or output-prediction sets, by name, folder
or file). A folder or a name is whichever of the two files it holds; a file is a predict
set's when it is named like that export. Sets of one environment are pooled, and the
schedule (schedule.py) draws each update's prompts across environments by weight.

Every environment's rows reach the trainer in one form, `prompt`, `task_id`,
`environment` and `target`: the repair task's folder, or what the prediction is compared
against."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from ..errors import BadInput
from ..hashing import sha256_json
from ..predict.items import GRPO_FILE as PREDICT_FILE
from ..predict.items import PredictGrpoRow
from ..predict.prompt import FORMAT_VERSION
from .config import RuntimeSettings
from .data import GRPO_FILE, DataSource, find_data_file, load_grpo, load_rows
from .rewards import Judge, PredictJudge, PredictTarget, RepairJudge, make_verifier
from .schedule import draw, resolve_weights

@dataclass
class Environment:
    name: str
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


def _repair(path: Path) -> tuple[list[dict], set[str], DataSource]:
    rows, source, tasks = load_grpo(str(path))
    records = [{"prompt": [m.model_dump() for m in r.prompt], "task_id": r.task_id, "environment": "repair",
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


def load_training_data(refs: Sequence[str]) -> TrainingData:
    """Every data set given, pooled by environment. Each set is loaded (and its tasks)
    here, so bad data fails before any model is loaded."""
    if not refs:
        raise BadInput("grpo needs at least one curriculum or output-prediction set")
    environments: dict[str, Environment] = {}
    sources: list[DataSource] = []
    for ref in refs:
        path = find_data_file(ref, GRPO_FILE, PREDICT_FILE).resolve()
        if any(s.jsonl == path for s in sources):
            raise BadInput(f"{ref}: {path} is given twice")
        name = "predict" if path.name.endswith(PREDICT_FILE) else "repair"
        records, tasks, source = (_predict if name == "predict" else _repair)(path)
        env = environments.setdefault(name, Environment(name, [], set()))
        env.records += records
        env.tasks |= tasks
        sources.append(source)
    return TrainingData(
        environments=environments,
        data=[str(s.jsonl) for s in sources],
        # One set keeps its own hash, so runs over one curriculum are recorded as before.
        dataset_hash=sources[0].dataset_hash if len(sources) == 1 else sha256_json([s.dataset_hash for s in sources]),
        trained_on_tasks=sorted({t for s in sources for t in s.trained_on_tasks}),
        curriculum=sources[0].curriculum if len(sources) == 1 else None,
    )


def schedule(data: TrainingData, weights: dict[str, float], prompts: int, seed: int) -> list[dict]:
    """The rows the run trains on, in order: `prompts` drawn across the environments."""
    sizes = data.sizes()
    return [data.environments[env].records[i] for env, i in draw(sizes, resolve_weights(sizes, weights), prompts, seed)]


def make_judges(data: TrainingData, runtime: RuntimeSettings) -> dict[str, Judge]:
    """A judge for each environment the run has data for (a predict-only run builds no
    verifier, so it needs no sandbox)."""
    judges: dict[str, Judge] = {}
    for name in data.environments:
        judges[name] = RepairJudge(make_verifier(runtime)) if name == "repair" else PredictJudge()
    return judges
