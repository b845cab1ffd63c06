"""What the viewer's grid needs of each trial beyond the report's outcome frame: the kind
of failure of every failed round (the curriculum's taxonomy, so a filter and a curriculum
name failures alike), the infrastructure error's kind and first line, and the trial's wall
time.

The rows are kept in a cache of their own beside the run's results, stamped like the
report's (outcomes.trial_rows), so a large run is parsed once and then only statted."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
from pydantic import BaseModel, ConfigDict, ValidationError

from ..curriculum.taxonomy import classify
from ..errors import invalid
from ..outcomes import trial_rows
from ..records import InfraFailure, RunManifest, TestReport, TrialOutcome

VIEW_CACHE = ".view-rows-2.parquet"  # -2: rows carry the error's first line
COLUMNS = ("run_config", "task", "trial", "passed_round", "kinds", "infra", "error", "seconds", "tampered")
ERROR_CHARS = 300  # of an infrastructure error's message, in the grid's list of errors


class _Facts(BaseModel):
    model_config = ConfigDict(extra="ignore")


class _Timings(_Facts):
    total_seconds: float = 0.0


class _Round(_Facts):
    test_report: TestReport | None = None
    timings: _Timings = _Timings()


class ViewFacts(_Facts):
    task: str
    trial: int
    outcome: TrialOutcome
    passed_round: int | None = None
    rounds: list[_Round] = []
    infra_error: InfraFailure | None = None
    tampered: list[str] = []


def failure_kinds(reports: list[TestReport | None]) -> list[str]:
    """The kind of each failed round's failure, in round order, each once."""
    kinds: list[str] = []
    for report in reports:
        if report is not None and not report.passed:
            kind = classify(report).kind.value
            if kind not in kinds:
                kinds.append(kind)
    return kinds


def read_view_rows(root: Path, rels: list[str]) -> list[dict]:
    rows = []
    for rel in rels:
        path = Path(root) / rel
        try:
            facts = ViewFacts.model_validate_json(path.read_bytes())
        except ValidationError as exc:
            raise invalid(exc, f"{path}: not a trial result") from None
        rows.append(dict(
            task=facts.task, trial=facts.trial, passed_round=facts.passed_round or 0,
            kinds=" ".join(failure_kinds([r.test_report for r in facts.rounds])),
            infra=facts.infra_error.kind if facts.infra_error else "",
            error=" ".join(facts.infra_error.message.split())[:ERROR_CHARS] if facts.infra_error else "",
            seconds=round(sum(r.timings.total_seconds for r in facts.rounds), 3),
            tampered=bool(facts.tampered),
        ))
    return rows


def view_rows(run_dir: Path, manifest: RunManifest) -> pd.DataFrame:
    """One row per result.json of the run: COLUMNS, run_config being the config's folder."""
    table = trial_rows(Path(run_dir), manifest, cache=VIEW_CACHE, read=read_view_rows)
    if table.empty:
        return pd.DataFrame(columns=list(COLUMNS))
    return table.rename(columns={"config": "run_config"})[list(COLUMNS)]
