"""The study's pilot on a pool of Python functions: does the metric tell good suites from bad
ones for the same functions, with paired statistics, and does filling expected values by
execution raise validity over suites whose expected values are wrong?

For each task of `--suite` (its first `--tasks` tasks with one test file), four suites are
made from the task's own tests (the gold suite) on its syntax tree:

    gold     the task's own tests
    weak     gold with every assertion statement but the first replaced by `pass`
    wrong    gold with every expected literal of an equality assertion changed (an int by
             one, a float by 1.5, a string with "x" added, a bool negated, a list or tuple
             one item longer)
    filled   wrong with those literals written as FILL, scored in fill mode

All are scored as a run scores them (score_suites, `--mutant-cap` mutants, seed 0, the
Docker sandbox, `--workers`). Then, over the tasks: kill rate gold against weak (mean and
the exact sign-flip test of the per-task differences), validity wrong against filled (the
same test on 1/0), assertion accuracy of wrong, and each suite kind's shape.

    .venv/bin/python tests/bench/pilot_testwriting.py --suite humaneval [--tasks 40]
        [--mutant-cap 30] [--workers 2] [--json OUT]
"""

from __future__ import annotations

import argparse
import ast
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

from harness.languages.python.placeholders import PLACEHOLDER  # noqa: E402
from harness.languages.python.written import assertion_kind  # noqa: E402
from harness.sandbox import make_sandbox  # noqa: E402
from harness.stats import sign_flip_test  # noqa: E402
from harness.suite import find_suite  # noqa: E402
from harness.testwriting.score import SuiteToScore, score_suites  # noqa: E402
from harness.testwriting.written import test_file  # noqa: E402

KINDS = ("gold", "weak", "wrong", "filled")


def _expected(stmt: ast.stmt) -> ast.Constant | ast.List | ast.Tuple | None:
    """The literal expected side of an equality assertion, if it has one."""
    if isinstance(stmt, ast.Assert) and isinstance(stmt.test, ast.Compare) and len(stmt.test.ops) == 1 \
            and isinstance(stmt.test.ops[0], ast.Eq):
        sides = [stmt.test.comparators[0], stmt.test.left]
    elif isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call) and assertion_kind(stmt) == "equality":
        sides = list(reversed(stmt.value.args[:2]))
    else:
        return None
    for side in sides:
        if isinstance(side, (ast.Constant, ast.List, ast.Tuple)):
            try:
                ast.literal_eval(side)
            except ValueError:
                continue
            return side
    return None


def _wrong(value):
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return value + 1
    if isinstance(value, float):
        return value + 1.5
    if isinstance(value, str):
        return value + "x"
    if isinstance(value, list):
        return value + [None]
    if isinstance(value, tuple):
        return value + (None,)
    return "wrong"


def made(source: str) -> dict[str, tuple[str, bool]]:
    """Each kind's suite text and whether it is scored in fill mode."""
    tree = ast.parse(source)
    sites = sorted((n for n in ast.walk(tree) if isinstance(n, ast.stmt) and assertion_kind(n) is not None),
                   key=lambda n: (n.lineno, n.col_offset))
    lines = source.splitlines(keepends=True)
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line))

    def at(node: ast.AST) -> tuple[int, int]:
        return (starts[node.lineno - 1] + node.col_offset, starts[node.end_lineno - 1] + node.end_col_offset)

    def edited(edits: list[tuple[int, int, str]]) -> str:
        text = source
        for start, end, new in sorted(edits, reverse=True):
            text = text[:start] + new + text[end:]
        return text

    weak = edited([(*at(s), "pass") for s in sites[1:]])
    expected = [e for s in sites if (e := _expected(s)) is not None]
    wrong = edited([(*at(e), repr(_wrong(ast.literal_eval(e)))) for e in expected])
    filled = edited([(*at(e), PLACEHOLDER) for e in expected])
    return {"gold": (source, False), "weak": (weak, False), "wrong": (wrong, False), "filled": (filled, True)}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--suite", default="humaneval")
    parser.add_argument("--tasks", type=int, default=40)
    parser.add_argument("--mutant-cap", type=int, default=30)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    suite = find_suite(args.suite)
    tasks = [t for t in suite.tasks if len(t.test_files) == 1][:args.tasks]
    units, keys = [], []
    for task in tasks:
        for kind, (text, fill) in made(task.read(test_file(task)).decode()).items():
            units.append(SuiteToScore(task, text.encode(), fill=fill))
            keys.append((task.slug, kind))
    box = make_sandbox("docker")
    start = time.monotonic()
    failures: dict[int, str] = {}
    scored = score_suites(box, units, workers=args.workers, mutant_cap=args.mutant_cap,
                          on_failure=lambda i, f: failures.__setitem__(i, f.record.message))
    seconds = time.monotonic() - start
    got = {key: s for key, s in zip(keys, scored) if s is not None}
    slugs = [t.slug for t in tasks if all((t.slug, k) in got for k in KINDS)]

    def column(kind: str, field: str) -> np.ndarray:
        return np.array([float(getattr(got[(s, kind)], field) or 0.0) for s in slugs])

    def paired(a: np.ndarray, b: np.ndarray) -> dict:
        return {"a": float(a.mean()), "b": float(b.mean()), "difference": float((b - a).mean()),
                "p_sign_flip": sign_flip_test(b - a)}

    out = {
        "suite": args.suite, "tasks": len(slugs), "mutant_cap": args.mutant_cap, "seconds": round(seconds, 1),
        "failures": len(failures),
        "valid": {k: int(column(k, "valid").sum()) for k in KINDS},
        "kill_rate_gold_vs_weak": paired(column("gold", "kill_rate"), column("weak", "kill_rate")),
        "valid_wrong_vs_filled": paired(column("wrong", "valid"), column("filled", "valid")),
        "assertion_accuracy_wrong": float(np.mean([got[(s, "wrong")].assertion_accuracy or 0.0 for s in slugs])),
        "targets_per_task": float(np.mean([got[(s, "gold")].scored for s in slugs])),
        "shape": {k: {f: float(np.mean([getattr(got[(s, k)].shape, f) for s in slugs if got[(s, k)].shape]))
                      for f in ("tests", "assertions", "equality", "exception", "property", "other", "lines")}
                  for k in KINDS},
        "gold_not_valid": [s for s in slugs if not got[(s, "gold")].valid],
    }
    text = json.dumps(out, indent=2)
    print(text)
    if args.json:
        args.json.write_text(text + "\n")


if __name__ == "__main__":
    main()
