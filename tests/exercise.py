"""A tiny exercise in Exercism's layout, for the tests of every language: its files by path
and the .meta/config.json that names them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Mapping, Sequence


def write_exercise(root: Path, slug: str, files: Mapping[str, str], *, solution: Sequence[str], test: Sequence[str],
                   example: Sequence[str], invalidator: Sequence[str] = ()) -> Path:
    task = root / slug
    for rel, text in {**files, ".meta/config.json": json.dumps({"files": {
            "solution": list(solution), "test": list(test), "example": list(example),
            **({"invalidator": list(invalidator)} if invalidator else {})}})}.items():
        (task / rel).parent.mkdir(parents=True, exist_ok=True)
        (task / rel).write_text(text)
    return task
