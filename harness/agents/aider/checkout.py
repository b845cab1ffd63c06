"""The user's Aider checkout, read as data: the prompt texts of Aider's benchmark from its
`benchmark/prompts.py`. The file is parsed, never executed (a checkout is someone else's
code, and only two string constants are wanted), and what was read is recorded: the path
and the file's sha256 go into the run manifest."""

from __future__ import annotations

import ast
import os
from pathlib import Path

from pydantic import BaseModel

from ...errors import BadInput
from ...hashing import sha256_bytes

CHECKOUT_ENV = "HARNESS_AIDER_CHECKOUT"
PROMPTS_FILE = Path("benchmark") / "prompts.py"
# benchmark.py appends the first to the exercise's instructions and the second to the
# test output of a failed try, each formatted with the solution files' names.
PROMPT_NAMES = ("instructions_addendum", "test_failures")


class AiderPrompts(BaseModel):
    path: str
    sha256: str
    instructions_addendum: str
    test_failures: str


def checkout_path(given: Path | None) -> Path | None:
    """The checkout named on the command line, else in $HARNESS_AIDER_CHECKOUT, else none."""
    if given is not None:
        return Path(given)
    env = os.environ.get(CHECKOUT_ENV, "").strip()
    return Path(env) if env else None


def read_prompts(checkout: Path) -> AiderPrompts:
    """The benchmark's prompt strings, from the module-level assignments of prompts.py."""
    path = Path(checkout).expanduser().resolve() / PROMPTS_FILE
    if not path.is_file():
        raise BadInput(f"{checkout}: not an Aider checkout (no {PROMPTS_FILE})")
    data = path.read_bytes()
    try:
        tree = ast.parse(data, filename=str(path))
    except (SyntaxError, ValueError) as exc:
        raise BadInput(f"{path}: not readable as Python ({exc})") from None
    found: dict[str, str] = {}
    for node in tree.body:
        if not (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)):
            continue
        name = node.targets[0].id
        if name not in PROMPT_NAMES:
            continue
        try:
            value = ast.literal_eval(node.value)
        except ValueError:
            value = None
        if not isinstance(value, str):
            raise BadInput(f"{path}: {name} (line {node.lineno}) is not a plain string literal")
        found[name] = value
    missing = [n for n in PROMPT_NAMES if n not in found]
    if missing:
        raise BadInput(f"{path}: no string assigned to {', '.join(missing)}")
    return AiderPrompts(path=str(path), sha256=sha256_bytes(data), **found)
