"""`harness predict import problems`: (program, stdin) -> stdout items from a file of
competitive-programming problems, one JSON object a line.

What is read of a problem (the first field of each row that is there):

    id          name (CodeContests), id, problem_id (APPS), task_id
    solutions   solutions: {"language": [int], "solution": [str]} (CodeContests: Python 3 is 3,
                the others are left out), or a list of Python 3 sources
    tests       public_tests, then private_tests: {"input": [str], "output": [str]}
                (CodeContests), or a list of {"input": str, "output": str}

Anything else on the row (the statement, ratings, generated tests, incorrect solutions) is
not read. A row that is no JSON object, or a field of another shape, is bad input naming
its line; problem ids must be unique.

Each of the first `solutions` solutions (one per normal form) runs on each of the first
`tests` tests in the sandbox (`Language.run_on_stdin`, every run from nothing), and its
standard output is the truth: never the file's. The file's expected output decides only
whether the pair is kept: a run that exits 0 and prints, token by token (numbers within
1e-5), the file's expected output is an item; any other run (an error, a timeout, output
over the bound, output that is no UTF-8, or output that differs: a wrong solution, or a
problem with more than one right answer) is no item, counted by reason. The expected output
never enters the sandbox. Problems are split into train and eval before any run, as tasks
are by `predict build`, and the set is written by the same writer."""

from __future__ import annotations

import hashlib
import json
import os
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Callable

from pydantic import BaseModel, ConfigDict, ValidationError

from ..curriculum.normalize import normalized_hash
from ..errors import BadInput
from ..executor.local import work_in_sessions
from ..languages.registry import language_named
from ..probe.compare import call_matches
from ..sandbox import Sandbox, SandboxSession, make_sandbox
from ..sandbox.base import SandboxLimits
from ..sandbox.image import image_repo
from ..testwriting.pool.task_files import slug_of
from .build import Built, split_tasks, write_set
from .config import ProblemsImportConfig
from .items import PredictItem, Provenance, item_id
from .score import STDOUT_RULE

PROGRAM = "solution.py"
MAX_TEXT = 4096  # characters of a test's input or of a program's output: what a prompt shows or asks for
_PYTHON3 = 3     # CodeContests' code for Python 3 in `solutions.language`
_IDS = ("name", "id", "problem_id", "task_id")


class _Columns(BaseModel):
    """CodeContests' tests and solutions: columns of equal length."""

    model_config = ConfigDict(extra="ignore")
    input: list[str] = []
    output: list[str] = []
    language: list[int] = []
    solution: list[str] = []


class _Pair(BaseModel):
    model_config = ConfigDict(extra="ignore")
    input: str
    output: str


@dataclass
class Problem:
    slug: str
    solutions: list[tuple[int, str]]    # (its place among the row's solutions, from 1; the source)
    tests: list[tuple[str, str, str]]   # (which test, input, expected output)


@dataclass(frozen=True)
class ProblemsFile:
    """The set's source, as `build.SetSource` reads it."""

    name: str
    content_hash: str
    image: str = image_repo("python")


def _tests(row: dict[str, Any], which: str) -> list[tuple[str, str]]:
    raw = row.get(f"{which}_tests")
    if raw is None:
        return []
    if isinstance(raw, list):
        return [(p.input, p.output) for p in (_Pair.model_validate(x) for x in raw)]
    cols = _Columns.model_validate(raw)
    if len(cols.input) != len(cols.output):
        raise ValueError(f"{which}_tests: {len(cols.input)} inputs but {len(cols.output)} outputs")
    return list(zip(cols.input, cols.output))


def _solutions(raw: Any) -> list[tuple[int, str]]:
    if isinstance(raw, list):
        if not all(isinstance(s, str) for s in raw):
            raise ValueError("solutions: a list of sources holds something else")
        return list(enumerate(raw, 1))
    cols = _Columns.model_validate(raw if raw is not None else {})
    if len(cols.language) != len(cols.solution):
        raise ValueError(f"solutions: {len(cols.language)} languages but {len(cols.solution)} sources")
    return [(n, s) for n, (lang, s) in enumerate(zip(cols.language, cols.solution), 1) if lang == _PYTHON3]


def _problem(row: Any, config: ProblemsImportConfig) -> Problem:
    if not isinstance(row, dict):
        raise ValueError("not a JSON object")
    ident = next((row[k] for k in _IDS if type(row.get(k)) in (str, int)), None)
    if ident is None or not slug_of(str(ident)):
        raise ValueError(f"no id (one of {', '.join(_IDS)})")
    tests = [(f"{which} test {i + 1}", stdin, out) for which in ("public", "private")
             for i, (stdin, out) in enumerate(_tests(row, which))]
    return Problem(slug_of(str(ident)), _solutions(row.get("solutions"))[:config.solutions], tests[:config.tests])


def read_problems(config: ProblemsImportConfig) -> tuple[list[Problem], str]:
    """The file's problems in file order and its content hash; bad input names the line.
    Read a line at a time: such files run to gigabytes of solutions not read."""
    problems: dict[str, Problem] = {}
    digest = hashlib.sha256()
    try:
        with config.path.open("rb") as f:
            for number, line in enumerate(f, 1):
                digest.update(line)
                if line.strip():
                    _add(problems, line, f"{config.path}:{number}", config)
    except OSError as exc:
        raise BadInput(f"{config.path}: cannot read it ({exc.strerror or exc})") from None
    if not problems:
        raise BadInput(f"{config.path}: no problems in it")
    return list(problems.values()), digest.hexdigest()


def _add(problems: dict[str, Problem], line: bytes, where: str, config: ProblemsImportConfig) -> None:
    try:
        problem = _problem(json.loads(line), config)
    except ValidationError as exc:
        first = exc.errors()[0]
        raise BadInput(f"{where}: not a problem of a shape this reads ({'.'.join(map(str, first['loc']))}: "
                       f"{first['msg']})") from None
    except (ValueError, RecursionError) as exc:  # a line that is no JSON (or JSON nested past the parser) too
        raise BadInput(f"{where}: not a problem of a shape this reads ({str(exc).splitlines()[0]})") from None
    if problem.slug in problems:
        raise BadInput(f"{where}: a second problem {problem.slug!r}")
    problems[problem.slug] = problem


@dataclass
class _Unit:
    source: str
    problem: Problem
    split: str
    items: list[PredictItem] = field(default_factory=list)
    dropped: Counter = field(default_factory=Counter)


def _observe(unit: _Unit, timeout_s: float) -> Callable[[SandboxSession], None]:
    language = language_named("python")
    problem, task = unit.problem, f"{unit.source}/{unit.problem.slug}"
    tests = [t for t in problem.tests if len(t[1]) <= MAX_TEXT]
    if len(tests) < len(problem.tests):
        unit.dropped["a test's input over the bound"] += len(problem.tests) - len(tests)

    def run(session: SandboxSession) -> None:
        seen: set[str] = set()
        for n, source in problem.solutions:
            files = {PROGRAM: source.encode()}
            code_hash = normalized_hash(language, files, set())
            if code_hash in seen:
                unit.dropped["duplicate solution (same normal form)"] += 1
                continue
            seen.add(code_hash)
            runs = language.run_on_stdin(files[PROGRAM], [stdin.encode() for _, stdin, _ in tests], session,
                                         timeout_s=timeout_s, stdout_bytes=MAX_TEXT)
            for (check, stdin, expected), ran in zip(tests, runs):
                why = _refusal(ran.exit_code, ran.over, ran.stdout, expected)
                if why is not None:
                    unit.dropped[why] += 1
                    continue
                stdout = ran.stdout.decode()
                unit.items.append(PredictItem(
                    id=item_id(code_hash, stdin), task=task, split=unit.split, check=check, call=stdin,
                    files={PROGRAM: source}, code_hash=code_hash, expected={"o": [{"v": stdout}]},
                    answer=stdout.rstrip(), compare=STDOUT_RULE, stdin=True,
                    sources=[Provenance(task=task, source="reference", name=f"solution {n}")]))

    return run


def _refusal(exit_code: int | None, over: bool, stdout: bytes, expected: str) -> str | None:
    """Why a run is no item (None: it is one)."""
    if exit_code is None:
        return "the run could not be read back"
    if exit_code != 0:
        return "the solution did not exit 0 (an error, a timeout, output past the file-size limit)"
    if over:
        return "output over the bound"
    try:
        text = stdout.decode()
    except UnicodeDecodeError:
        return "output that is not UTF-8"
    if not call_matches({"o": [{"v": expected}]}, {"o": [{"v": text}]}, STDOUT_RULE):
        return "output differs from the file's expected output (a wrong solution, or several right answers)"
    return None


def import_problems(config: ProblemsImportConfig, *, sandbox: Sandbox | None = None,
                    notice: Callable[[str], None] | None = None) -> Built:
    problems, content_hash = read_problems(config)
    dest = config.out_root() / config.out
    if dest.exists() and not config.replace:
        raise BadInput(f"{dest}: a set named {config.out!r} exists already (use --replace to overwrite it)")
    source = slug_of(config.path.stem) or "problems"
    slugs = [p.slug for p in problems]
    usable = [p.slug for p in problems if p.solutions and p.tests]
    eval_set = split_tasks(slugs, usable, config.eval_tasks, config.eval_share, config.seed)
    skipped = {p.slug: "no Python 3 solution, or no test" for p in problems if p.slug not in usable}
    units = [_Unit(source, p, "eval" if p.slug in eval_set else "train") for p in problems if p.slug in usable]
    if not units:
        raise BadInput(f"{config.path}: no problem has both a Python 3 solution and a test")
    box = sandbox or make_sandbox(config.sandbox, SandboxLimits(timeout_s=config.run_timeout_s), notice=notice)
    work = {id(u): _observe(u, config.run_timeout_s) for u in units}
    workers = max(1, min(config.workers or os.cpu_count() or 1, len(units)))
    work_in_sessions(box, units, lambda u, s: work[id(u)](s), workers=workers, label="predict import problems")
    dropped: Counter = Counter()
    items = []
    for unit in units:
        dropped.update(unit.dropped)
        items.extend(unit.items)
        if not unit.items:
            skipped[unit.problem.slug] = "no run of a solution printed the expected output"
    return write_set(dest, config.out, ProblemsFile(config.path.name, content_hash), items, dropped, skipped,
                     eval_tasks=sorted(f"{source}/{u.problem.slug}" for u in units if u.split == "eval"))
