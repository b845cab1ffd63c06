"""A document as JSON: its texts, raw numbers and tables; NaN written as null."""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path

import numpy as np

from .document import Document


def _json_default(value):
    if isinstance(value, (np.integer,)):
        return int(value)
    if isinstance(value, (np.floating,)):
        return float(value)
    if isinstance(value, Path):
        return str(value)
    raise TypeError(f"not JSON-able: {type(value).__name__}")


def _nan_to_none(value):
    if isinstance(value, float) and value != value:
        return None
    if isinstance(value, dict):
        return {str(k): _nan_to_none(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_nan_to_none(v) for v in value]
    return value


def render_json(doc: Document) -> str:
    body = {
        "kind": doc.kind, "title": doc.title, "lead": doc.lead, "warnings": doc.warnings, "notes": doc.notes,
        "verdict": doc.verdict,
        "data": doc.data, "tables": [asdict(t) for t in doc.tables],
    }
    return json.dumps(_nan_to_none(body), indent=2, default=_json_default) + "\n"
