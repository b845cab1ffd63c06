"""The one check of a file name that came from outside the harness: from a model's answer,
a training completion, the edits Aider reports, a candidate's files, a curriculum or an
imported exercise folder. Every place that writes or reads a file by such a name asks
`refusal` first; a name it refuses is never written, read or followed, and the answer
that gave it fails as malformed (never an exception that ends a batch).

A name is accepted when it is a relative POSIX path of printable ASCII inside its root:
no absolute part, no empty, `.` or `..` part, no backslash, control character or
non-ASCII character (no look-alike slashes, direction overrides or zero-width characters
that would show a person one name and the file system another), no part that begins with
`-` or is a DOS device name, at most `MAX_PART` bytes a part, `MAX_PARTS` parts and
`MAX_NAME` bytes in all. Given the folder it lives in, no part on the way may be a link,
a part before the last must be a folder and the last, where it exists, a regular file (not
a device, pipe or socket). Given what the task lets the model write, the name must be one
of those.

Standard library only, and no import of the harness: Aider's driver (agents/aider/driver.py)
runs in Aider's own environment and loads this file by its path, so the edits Aider applies
are held to the same rule as everything else."""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Callable, Collection, Union

MAX_NAME = 1024   # bytes of the whole name
MAX_PART = 255    # bytes of one part: the longest name Linux file systems take
MAX_PARTS = 32    # folders deep
# Names Windows gives devices, whatever the suffix: a file by one of them cannot be
# checked out there, and no exercise needs one.
_DEVICES = frozenset({"con", "prn", "aux", "nul", *(f"com{i}" for i in range(10)), *(f"lpt{i}" for i in range(10))})

Allowed = Union[Callable[[str], bool], Collection[str], None]


def _part_problem(part: str) -> str | None:
    if part in (".", ".."):
        return f"a `{part}` part"
    if not part:
        return "an empty part (`//`, or a trailing `/`)"
    if len(part.encode()) > MAX_PART:
        return f"a part longer than {MAX_PART} bytes"
    if part.startswith("-"):
        return "a part that begins with `-`"
    if part.split(".")[0].rstrip(" ").lower() in _DEVICES:
        return "a device name"
    return None


def _lexical_problem(name: object) -> str | None:
    if not isinstance(name, str):
        return "not text"
    if not name:
        return "an empty name"
    bad = next((c for c in name if not " " <= c <= "~" or c == "\\"), None)
    if bad is not None:
        return f"the character {bad!r} (names are printable ASCII without backslashes)"
    if len(name.encode()) > MAX_NAME:
        return f"longer than {MAX_NAME} bytes"
    if name.startswith("/"):
        return "an absolute name"
    parts = name.split("/")
    problem = next((p for p in map(_part_problem, parts) if p is not None), None)
    if problem is None and len(parts) > MAX_PARTS:
        problem = f"more than {MAX_PARTS} folders deep"
    return problem


def _on_disk_problem(root: Path, name: str) -> str | None:
    """Walks the name's parts under `root` without following anything."""
    at = Path(root)
    parts = name.split("/")
    for i, part in enumerate(parts):
        at = at / part
        try:
            mode = os.lstat(at).st_mode
        except FileNotFoundError:
            return None  # nothing further down exists either
        except OSError as exc:
            return f"{'/'.join(parts[:i + 1])} cannot be looked at ({exc.strerror})"
        if stat.S_ISLNK(mode):
            return f"{'/'.join(parts[:i + 1])} is a link"
        last = i == len(parts) - 1
        if not last and not stat.S_ISDIR(mode):
            return f"{'/'.join(parts[:i + 1])} is not a folder"
        if last and not stat.S_ISREG(mode):
            return "an existing folder, device, pipe or socket, not a regular file"
    return None


def _permitted(name: str, allowed: Allowed) -> bool:
    if allowed is None:
        return True
    return allowed(name) if callable(allowed) else name in allowed


def refusal(name: object, *, root: Path | str | None = None, allowed: Allowed = None) -> str | None:
    """Why `name` may not be used (None: it may). `root` is the folder the name lives in,
    checked on disk; `allowed` is what the task lets the model write (a predicate or the
    names themselves)."""
    problem = _lexical_problem(name)
    if problem is None and root is not None:
        problem = _on_disk_problem(Path(root), name)  # type: ignore[arg-type]  # text, checked above
    if problem is None and not _permitted(name, allowed):  # type: ignore[arg-type]
        problem = "not a file this task lets the model write"
    return problem


def describe(name: object, problem: str) -> str:
    """One line for a record: the name, escaped and cut short, and why it was refused."""
    shown = ascii(name)
    return f"{shown if len(shown) <= 120 else shown[:117] + '...'}: {problem}"
