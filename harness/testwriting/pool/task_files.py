"""One function as a task folder in Exercism's Python layout (languages/python/layout.py),
the shape `load_task` reads and the Python language runs: `<module>.py` the stub,
`<module>_test.py` the task's own tests, `.meta/example.py` the reference, `.meta/config.json`
the roles, `.docs/instructions.md` what a repair trial asks. A test-writing trial replaces the
test file with the one the model writes and scores it on the reference."""

from __future__ import annotations

import json
import keyword
import re
import sys
from dataclasses import dataclass
from pathlib import Path

from ...errors import BadInput
from ...file_names import describe, refusal

# Names the round itself imports (pytest and its conftest), which a module of the task's
# would shadow; the standard library's are in sys.stdlib_module_names.
_IMPORTED_BY_THE_ROUND = frozenset({"pytest", "_pytest", "conftest", "pluggy", "py"})


@dataclass(frozen=True)
class PoolFunction:
    """A function made into a task: its slug and module name, and the four texts."""

    slug: str
    module: str  # `<module>.py` holds the stub and, in the reference, the function
    function: str
    reference: str
    stub: str
    tests: str
    instructions: str


def slug_of(*parts: str) -> str:
    """A task folder name (suite.py's rule: lowercase letters, digits, '-', '_', '.') from
    the parts that name a function: runs of anything else become one '-'."""
    return "-".join(p for p in (re.sub(r"[^a-z0-9]+", "-", part.lower()).strip("-") for part in parts) if p)


def module_problem(module: str) -> str | None:
    """Why `module` cannot name a task's module (None: it can). A test file imports the
    module by name, so it must be an identifier that no import of the tests or of pytest
    means otherwise, and that pytest does not collect as a test file itself."""
    if not (module.isascii() and module.isidentifier()) or keyword.iskeyword(module):
        return f"{module!r} is not an ASCII identifier"
    if module in sys.stdlib_module_names or module in _IMPORTED_BY_THE_ROUND:
        return f"{module!r} is the name of a module the tests may import"
    if module.startswith("test") or module.endswith("_test"):
        return f"{module!r} is a name pytest collects as a test file"
    return None


def write_task(root: Path, fn: PoolFunction) -> None:
    """Lay out `fn`'s task folder under `root`. Its names come from outside (a function's,
    a file's): each goes through the one check of such names before anything is written."""
    problem = module_problem(fn.module)
    if problem is not None:
        raise BadInput(f"{fn.slug}: {problem}")
    files = {
        f"{fn.module}.py": fn.stub,
        f"{fn.module}_test.py": fn.tests,
        ".meta/example.py": fn.reference,
        ".meta/config.json": json.dumps({
            "authors": [],
            "files": {"solution": [f"{fn.module}.py"], "test": [f"{fn.module}_test.py"],
                      "example": [".meta/example.py"]},
            "blurb": f"{fn.function}, imported by `harness pool import`",
        }, indent=2) + "\n",
        ".docs/instructions.md": fn.instructions,
    }
    for name in (fn.slug, *(f"{fn.slug}/{rel}" for rel in files)):
        problem = refusal(name, root=root)
        if problem is not None:
            raise BadInput(f"{root}: {describe(name, problem)}")
    for rel, text in files.items():
        path = root / fn.slug / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
