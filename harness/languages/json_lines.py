"""A test tool's JSON event stream (Go's test2json, libtest's --format json), read with
bounds: what the candidate's process could write into it is parsed no further than the
first line that is not an object, nor past a count of lines."""

from __future__ import annotations

import json
from typing import Any

MAX_EVENTS = 50_000


def json_objects(data: bytes, what: str, limit: int = MAX_EVENTS) -> tuple[list[dict[str, Any]], str | None]:
    """The objects before the first line that is not `what`, or the first `limit`; and why
    the reading stopped early (None where it read every line)."""
    found: list[dict[str, Any]] = []
    for n, raw in enumerate(data.splitlines()):
        if n >= limit:
            return found, f"more than {limit} events"
        try:
            event = json.loads(raw)
        except ValueError:
            event = None
        if not isinstance(event, dict):
            return found, f"a line that is not {what}"
        found.append(event)
    return found, None
