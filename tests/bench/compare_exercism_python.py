"""Side by side with the anchor (not part of the test command): Exercism's own Python test
runner (exercism/python-test-runner, run on the host from a checkout, in a venv holding what
its requirements.txt names) and `harness test TASK --format exercism` (Docker sandbox), each
on its own copy of the same exercise folder; the two results.json compared field by field.

    .venv/bin/python tests/bench/compare_exercism_python.py \\
        --anchor /work/ext/python-test-runner --anchor-python /work/ext/exercism-py-venv/bin/python \\
        --exercises /work/ext/polyglot-benchmark/python/exercises/practice [--tasks a,b] [--variants ...]

Inputs: every exercise under --exercises (Exercism's layout), each answered by the variants
below, and the anchor's own golden fixtures (its test/example-*/ folders, each answered by
the solution it ships; a `.meta/config.json` naming its files is written into both copies,
as the harness needs one and the anchor reads its test files from it).

    reference   .meta/example.py
    stub        the exercise's <slug>.py as shipped
    wrong       the reference with its first `return <value>` made `return None`
    syntax      the reference with a line that does not parse appended
    import      the reference importing a module that does not exist
    chatty      the reference printing 600 characters on entry to every function
    error       the reference, the test file given an autouse fixture that raises for the
                file's first test (a setup error, pytest's `error`)

Compared (one run: an input answered by a variant): top-level `status`, whether there is a
`message`, whether there is `tests`; the tests' names in order;
and per test, matched by name: `status`, `test_code`, `task_id`, whether there is a `message`,
and `output`. A difference the harness makes on purpose is counted apart, with its reason
(KNOWN below), never as identical. Prints the table of counts per field and every other
difference in full; exits 1 if any is left unexplained. --keep DIR keeps both results.json
of every run (DIR/<input>/<variant>/{anchor,harness}.json); --keep DIR --kept compares those
again without running anything.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
VARIANTS = ("reference", "stub", "wrong", "syntax", "import", "chatty", "error")
TEST_FIELDS = ("status", "test_code", "task_id", "message", "output")

# Differences the harness makes on purpose: (field, a test of the pair) -> the reason.
KNOWN: dict[str, str] = {
    "task_id 0": "the anchor writes task_id 0 for a test of no task; the interface's task_id is "
                 "optional and 0 names no task, so the harness leaves it out",
    "subtest": "the anchor (pytest-subtests) adds an entry per failing or printing subTest, "
               "'<test> [variation #N]'; the harness reports the test functions the file declares",
    "output dropped": "the anchor keeps a test's print only for subTest variations (its capture runs "
                      "only for a test already failed, on a report pytest 8 no longer sends); the "
                      "interface asks for it on every test that printed, which the harness gives",
    "concept order": "the anchor sorts the tests of an exercise with tasks by task and then by name; "
                     "the interface asks for the test file's order, which the harness keeps",
    "files order": "with several test files the anchor sorts all tests by their line number, "
                   "interleaving the files; the harness keeps each file's order, the files in "
                   "the config's order",
    "tests on error": "the anchor writes tests: [] beside an error; the harness leaves tests out",
}


# --- inputs ---------------------------------------------------------------------------------


@dataclass
class Input:
    name: str          # the folder's name: the slug both runners are given
    source: Path       # the exercise folder
    solution: str      # the solution file's name
    tests: list[str]   # the test files' names
    fixture: bool      # one of the anchor's golden fixtures (answered as shipped)


def exercism_inputs(root: Path, only: set[str] | None) -> list[Input]:
    out = []
    for path in sorted(p for p in root.iterdir() if (p / ".meta" / "config.json").is_file()):
        if only and path.name not in only:
            continue
        files = json.loads((path / ".meta" / "config.json").read_text())["files"]
        out.append(Input(path.name, path, files["solution"][0], list(files["test"]), fixture=False))
    return out


def fixture_inputs(anchor: Path, only: set[str] | None) -> list[Input]:
    out = []
    for path in sorted((anchor / "test").glob("example-*")):
        if only and path.name not in only:
            continue
        config = path / ".meta" / "config.json"
        tests = json.loads(config.read_text())["files"]["test"] if config.is_file() else \
            [path.name.replace("-", "_") + "_test.py"]
        sources = [p.name for p in path.glob("*.py") if p.name not in tests]
        assert len(sources) == 1, path
        out.append(Input(path.name, path, sources[0], tests, fixture=True))
    return out


def _first_return(source: str) -> tuple[int, int, int] | None:
    """(line, column, end column) of the first `return <value>` on one line."""
    found = [n for n in ast.walk(ast.parse(source)) if isinstance(n, ast.Return) and n.value is not None
             and n.lineno == n.end_lineno]
    if not found:
        return None
    first = min(found, key=lambda n: (n.lineno, n.col_offset))
    return first.lineno, first.col_offset, first.end_col_offset or 0


def _chatty(source: str) -> str:
    """Every function prints 600 characters as its first statement."""
    lines = source.splitlines()
    funcs = [n for n in ast.walk(ast.parse(source)) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
    for func in sorted(funcs, key=lambda f: f.body[0].lineno, reverse=True):
        first = func.body[0]
        indent = " " * first.col_offset
        line = first.lineno - 1
        if lines[line][:first.col_offset].strip():  # `def f(): return x` on one line
            continue
        # The name without its underscores: the one-process screen (paasio) refuses a string
        # that names a dunder.
        lines.insert(line, f"{indent}print({func.name.strip('_')!r} + ' called ' + '.' * 600)")
    return "\n".join(lines) + "\n"


_ERROR_FIXTURE = '''

import pytest as _pytest_for_compare


@_pytest_for_compare.fixture(autouse=True)
def _setup_that_raises(request):
    if request.node.name == {name!r}:
        raise RuntimeError("the fixture broke")
'''


def _first_test_name(source: str) -> str | None:
    tree = ast.parse(source)
    names = [(n.lineno, n.name) for n in ast.walk(tree)
             if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name.startswith("test")]
    return min(names)[1] if names else None


def make_variant(item: Input, variant: str, folder: Path) -> bool:
    """Write the variant's solution (and test) into the copy; False when it does not apply."""
    sol = folder / item.solution
    reference = folder / ".meta" / "example.py"
    if variant == "stub":
        return True  # the shipped solution file
    if not reference.is_file():
        return False
    text = reference.read_text()
    if variant == "reference":
        sol.write_text(text)
    elif variant == "wrong":
        where = _first_return(text)
        if where is None:
            return False
        line, start, end = where
        lines = text.splitlines(keepends=True)
        lines[line - 1] = lines[line - 1][:start] + "return None" + lines[line - 1][end:]
        sol.write_text("".join(lines))
    elif variant == "syntax":
        sol.write_text(text + "\n\ndef broken(:\n    pass\n")
    elif variant == "import":
        sol.write_text("import no_such_module_for_compare\n" + text)
    elif variant == "chatty":
        sol.write_text(_chatty(text))
    elif variant == "error":
        sol.write_text(text)
        test = folder / item.tests[0]
        name = _first_test_name(test.read_text())
        if name is None:
            return False
        test.write_text(test.read_text() + _ERROR_FIXTURE.format(name=name))
    else:
        raise ValueError(variant)
    return True


def prepare(item: Input, variant: str, folder: Path) -> bool:
    shutil.copytree(item.source, folder, ignore=shutil.ignore_patterns("results.json", "__pycache__",
                                                                        ".pytest_cache"))
    if item.fixture:
        meta = folder / ".meta"
        meta.mkdir(exist_ok=True)
        shutil.copy(folder / item.solution, meta / "example.py")
        (meta / "config.json").write_text(json.dumps({"files": {
            "solution": [item.solution], "test": item.tests, "example": [".meta/example.py"]}}, indent=2))
        return True
    return make_variant(item, variant, folder)


# --- the two runners ------------------------------------------------------------------------


def run_anchor(anchor: Path, python: str, slug: str, folder: Path, out: Path) -> dict[str, Any]:
    env = {**os.environ, "PYTHONPATH": str(anchor), "PYTHONDONTWRITEBYTECODE": "1"}
    subprocess.run([python, "bin/run.py", slug, f"{folder}/", f"{out}/"], cwd=anchor, env=env,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=120, check=False)
    return json.loads((out / "results.json").read_text())


def run_harness(folder: Path, solution: str, out: Path, sandbox: str) -> dict[str, Any]:
    """This tree's `harness test` on the folder, its solution file given alone with --solution
    (the task folder as the workspace would also hand it .meta/ and .docs/, which a task run in
    one process, paasio, refuses as files beside its tests)."""
    target, answer = out / "results.json", out / "solution"
    answer.mkdir()
    shutil.copy(folder / solution, answer / solution)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.run([sys.executable, "-m", "harness", "test", str(folder), "--solution", str(answer),
                           "--sandbox", sandbox, "--format", "exercism", "--out", str(target)],
                          capture_output=True, text=True, timeout=600, check=False, env=env, cwd=ROOT)
    if proc.returncode not in (0, 1) or not target.is_file():
        raise RuntimeError(f"harness test {folder}: exit {proc.returncode}\n{proc.stderr[-2000:]}")
    return json.loads(target.read_text())


# --- the comparison -------------------------------------------------------------------------


@dataclass
class Tally:
    """Per field: identical, different for a reason of KNOWN (by reason), different."""

    same: dict[str, int] = field(default_factory=dict)
    known: dict[str, dict[str, int]] = field(default_factory=dict)
    differ: dict[str, list[str]] = field(default_factory=dict)

    def add(self, name: str, equal: bool, known: str | None = None, what: str = "") -> None:
        self.same.setdefault(name, 0)
        self.known.setdefault(name, {})
        self.differ.setdefault(name, [])
        if equal:
            self.same[name] += 1
        elif known is not None:
            self.known[name][known] = self.known[name].get(known, 0) + 1
        else:
            self.differ[name].append(what)


_SUBTEST = re.compile(r" \[variation #\d+\]$")


def _known_test_difference(name: str, a: dict[str, Any], h: dict[str, Any]) -> str | None:
    if name == "task_id" and a.get("task_id") == 0 and h.get("task_id") is None:
        return "task_id 0"
    if name == "output" and h.get("output") and not a.get("output"):
        return "output dropped"
    return None


def compare(label: str, anchor: dict[str, Any], harness: dict[str, Any], tally: Tally, files: int = 1) -> None:
    tally.add("run status", anchor["status"] == harness["status"],
              what=f"{label}: anchor {anchor['status']}, harness {harness['status']}")
    tally.add("run message present", ("message" in anchor) == ("message" in harness),
              what=f"{label}: anchor {'message' in anchor}, harness {'message' in harness}")
    a_tests, h_tests = anchor.get("tests"), harness.get("tests")
    if a_tests == [] and h_tests is None:
        tally.add("run tests present", False, known="tests on error")
    else:
        tally.add("run tests present", (a_tests is None) == (h_tests is None),
                  what=f"{label}: anchor {a_tests is not None}, harness {h_tests is not None}")
    a_tests, h_tests = a_tests or [], h_tests or []
    a_names = [t["name"] for t in a_tests if not _SUBTEST.search(t["name"])]
    h_names = [t["name"] for t in h_tests]
    for t in a_tests:
        if _SUBTEST.search(t["name"]):
            tally.add("subtest entries", False, known="subtest")
    if a_names == h_names:
        tally.add("names in order", True)
    elif sorted(a_names) == sorted(h_names) and any("~" in n for n in a_names):
        tally.add("names in order", False, known="concept order")
    elif sorted(a_names) == sorted(h_names) and files > 1:
        tally.add("names in order", False, known="files order")
    else:
        tally.add("names in order", False, what=f"{label}:\n      anchor  {a_names}\n      harness {h_names}")
    by_name = {t["name"]: t for t in h_tests}
    for a in a_tests:
        if _SUBTEST.search(a["name"]):
            continue
        h = by_name.get(a["name"])
        if h is None:
            tally.add("test matched by name", False, what=f"{label}: {a['name']!r} only in the anchor's")
            continue
        tally.add("test matched by name", True)
        for name in TEST_FIELDS:
            if name == "message":
                equal = ("message" in a) == ("message" in h)
                shown = (f"{'message' in a}", f"{'message' in h}")
            else:
                equal = a.get(name) == h.get(name)
                shown = (repr(a.get(name)), repr(h.get(name)))
            tally.add(f"test {name}" if name != "message" else "test message present", equal,
                      known=None if equal else _known_test_difference(name, a, h),
                      what=f"{label} / {a['name']}:\n      anchor  {shown[0]}\n      harness {shown[1]}")
    for name in sorted(set(by_name) - set(a_names)):
        tally.add("test matched by name", False, what=f"{label}: {name!r} only in the harness's")


# --- main -----------------------------------------------------------------------------------


def one(item: Input, variant: str, args: argparse.Namespace, tally: Tally) -> str:
    with tempfile.TemporaryDirectory(prefix="compare-exercism-py-") as tmp:
        base = Path(tmp)
        a_dir, h_dir = base / "a" / item.name, base / "h" / item.name
        if not prepare(item, variant, a_dir):
            return "skipped"
        prepare(item, variant, h_dir)
        (base / "a-out").mkdir()
        (base / "h-out").mkdir()
        anchor = run_anchor(args.anchor, args.anchor_python, item.name, a_dir, base / "a-out")
        harness = run_harness(h_dir, item.solution, base / "h-out", args.sandbox)
    if args.keep:
        keep = args.keep / item.name / variant
        keep.mkdir(parents=True, exist_ok=True)
        (keep / "anchor.json").write_text(json.dumps(anchor, indent=2) + "\n")
        (keep / "harness.json").write_text(json.dumps(harness, indent=2) + "\n")
    compare(f"{item.name} ({variant})", anchor, harness, tally, len(item.tests))
    return f"{anchor['status']}/{harness['status']}"


def report(tally: Tally, runs: int) -> int:
    print(f"\n{'field':22s} {'compared':>8s} {'identical':>9s} {'known':>6s} {'differ':>6s}")
    for name in tally.same:
        known = sum(tally.known[name].values())
        total = tally.same[name] + known + len(tally.differ[name])
        print(f"{name:22s} {total:8d} {tally.same[name]:9d} {known:6d} {len(tally.differ[name]):6d}")
    reasons: dict[str, int] = {}
    for by in tally.known.values():
        for reason, n in by.items():
            reasons[reason] = reasons.get(reason, 0) + n
    if reasons:
        print("\nknown differences:")
        for reason, n in reasons.items():
            print(f"  {n:5d}  {reason}: {KNOWN[reason]}")
    left = sum(len(v) for v in tally.differ.values())
    for name, whats in tally.differ.items():
        if whats:
            print(f"\n{name}: {len(whats)} different")
            for what in whats:
                print(f"  {what}")
    print(f"\n{runs} runs compared, {left} differences unexplained")
    return left


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--anchor", type=Path, required=True, help="a checkout of exercism/python-test-runner")
    ap.add_argument("--anchor-python", required=True, help="a python with the anchor's requirements")
    ap.add_argument("--exercises", type=Path, default=None, help="a folder of Exercism-layout Python exercises")
    ap.add_argument("--no-fixtures", action="store_true", help="leave out the anchor's golden fixtures")
    ap.add_argument("--tasks", default=None, help="only these inputs (comma-separated folder names)")
    ap.add_argument("--variants", default=",".join(VARIANTS), help="of " + ", ".join(VARIANTS))
    ap.add_argument("--sandbox", default="docker")
    ap.add_argument("--keep", type=Path, default=None, help="keep both results.json of every run here")
    ap.add_argument("--kept", action="store_true", help="run nothing: compare what an earlier --keep DIR kept")
    args = ap.parse_args()
    only = set(args.tasks.split(",")) if args.tasks else None
    variants = args.variants.split(",")
    work: list[tuple[Input, str]] = []
    if args.exercises is not None:
        work += [(i, v) for i in exercism_inputs(args.exercises, only) for v in variants]
    if not args.no_fixtures:
        work += [(i, "as shipped") for i in fixture_inputs(args.anchor, only)]
    tally, t0, load, runs = Tally(), time.time(), os.getloadavg()[0], 0
    if args.kept:
        for item, variant in work:
            pair = args.keep / item.name / variant
            if (pair / "anchor.json").is_file():
                runs += 1
                compare(f"{item.name} ({variant})", json.loads((pair / "anchor.json").read_text()),
                        json.loads((pair / "harness.json").read_text()), tally, len(item.tests))
        sys.exit(1 if report(tally, runs) else 0)
    for item, variant in work:
        got = one(item, variant, args, tally)
        runs += got != "skipped"
        print(f"{item.name:52s} {variant:10s} {got}", flush=True)
    left = report(tally, runs)
    print(f"{time.time() - t0:.0f} s, load average {load:.1f} -> {os.getloadavg()[0]:.1f}")
    sys.exit(1 if left else 0)


if __name__ == "__main__":
    main()
