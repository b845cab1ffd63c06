"""The recorder of a fill run (harness/languages/python/fill.py), run in the sandbox by the
written suite's own test process: each placeholder, rewritten to `record(site, value)`,
appends one line to the file that $HARNESS_FILL_RECORDS names, `{"site": N, "value": V}`
with the value the other side of its `==` had in the codec's encoding (what the codec
does not carry, or carries over its bounds, as `["h", 0, type name]`), and answers True, so
that the assertion holds and the test goes on to the next one.

Standard library and the codec only. The process is the written suite's, which may write
that file itself: the harness reads it with bounds and takes nothing in it on trust."""

from __future__ import annotations

import json
import os
from typing import Any

from .codec import Encoder

_LINE = 1 << 20  # bytes of one record: the harness reads no longer line


def _named(value: Any) -> list:
    return ["h", 0, type(value).__name__[:256]]


def _line(site: int, value: Any) -> str:
    try:
        line = json.dumps({"site": site, "value": Encoder(_named).encode(value)}, ensure_ascii=True,
                          allow_nan=False, separators=(",", ":"))
    except (ValueError, TypeError, RecursionError):  # a value whose own methods fail as they are read
        line = ""
    if not line or len(line) > _LINE:
        line = json.dumps({"site": site, "value": _named(value)}, separators=(",", ":"))
    return line


def record(site: int, value: Any) -> bool:
    data = (_line(site, value) + "\n").encode()
    fd = os.open(os.environ["HARNESS_FILL_RECORDS"], os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
    try:
        os.write(fd, data)
    finally:
        os.close(fd)
    return True
