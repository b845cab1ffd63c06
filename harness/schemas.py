"""The JSON Schemas of what the harness writes to disk, made from the pydantic models that
write and read it: the log format. `harness schema` prints them.

Each record carries its own `schema_version`; a reader refuses a version it does not know
(store.py) rather than misread it."""

from __future__ import annotations

from pydantic import BaseModel

from .errors import BadInput
from .exercism_results import ExercismResults
from .records import RlefSteps, RoundTrajectory, RunManifest, TestReport, TrialResult

# name -> (the file it describes, its model)
RECORDS: dict[str, tuple[str, type[BaseModel]]] = {
    "result": ("runs/<run>/<config>/<task>/trial-<k>/result.json: one trial, written last", TrialResult),
    "manifest": ("runs/<run>/manifest.json: the run, and everything that can change its results", RunManifest),
    "test-report": ("runs/<run>/.../round-<n>/test_report.json: one build-and-test (also `harness test --format "
                    "json`)", TestReport),
    "trajectory": ("runs/<run>/.../round-<n>/trajectory.json: one round's messages and model calls", RoundTrajectory),
    "self-rlef": ("runs/<run>/.../round-<n>/self-rlef.json: the Self-RLEF steps after a round's code", RlefSteps),
    "exercism-results": ("results.json of `harness test --format exercism`: Exercism's test-runner interface, "
                         "version 3", ExercismResults),
}


def schema(name: str, records: dict[str, tuple[str, type[BaseModel]]] = RECORDS) -> dict:
    """The JSON Schema of one record, as written (serialization mode), with the file it
    describes as its description; `records`: those to choose from (the CLI adds the
    reports' data, which live above this floor)."""
    if name not in records:
        raise BadInput(f"no schema {name!r}: choose one of {', '.join(records)}")
    where, model = records[name]
    found = model.model_json_schema(mode="serialization")
    found["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    found["description"] = where + (f". {found['description']}" if found.get("description") else "")
    return found
