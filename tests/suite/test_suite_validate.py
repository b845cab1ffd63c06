"""`suite validate` in the real Docker sandbox: each broken rule reported by task with its
reason, mutant kill rates with survivors saved, and the bundled fixed26 passing its own
rules."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from harness.languages.cpp.mutants import generate_mutants
from harness.suite import find_suite, load_suite
from harness.suite_validation import MutantOutcome, validate_suite

from tests.conftest import GOLDEN
from tests.suite.test_suite_loader import HARNESS, write_manifest

pytestmark = [pytest.mark.docker, pytest.mark.slow]

REFERENCE = (GOLDEN / "sum-of-squares" / ".meta" / "example.cpp").read_text()


def add_faulty(task: Path, name: str, cpp: str) -> None:
    folder = task / ".meta" / "faulty" / name
    folder.mkdir(parents=True)
    (folder / "sum_of_squares.cpp").write_text(cpp)
    shutil.copy(task / ".meta" / "example.h", folder / "sum_of_squares.h")


@pytest.fixture
def demo_suite(tmp_path) -> Path:
    """Two copies of the golden task: `good` keeps every rule; `bad` breaks each one."""
    folder = tmp_path / "demo"
    folder.mkdir()
    for slug in ("good", "bad"):
        shutil.copytree(GOLDEN / "sum-of-squares", folder / slug)
        # The build names its files after the folder; these folders keep the golden names.
        cmake = folder / slug / "CMakeLists.txt"
        cmake.write_text(cmake.read_text().replace('string(REPLACE "-" "_" file ${exercise})', "set(file sum_of_squares)"))
    write_manifest(folder, ["good", "bad"], "demo")
    good = folder / "good"
    add_faulty(good, "off-by-one", REFERENCE.replace("k <= n", "k < n"))
    add_faulty(good, "wrong-exception", REFERENCE.replace("std::domain_error", "std::invalid_argument"))
    bad = folder / "bad"
    (bad / "sum_of_squares.cpp").write_text(REFERENCE)  # a stub that already solves it
    (bad / ".meta" / "example.cpp").write_text(REFERENCE.replace("k * k", "k"))  # a wrong reference
    add_faulty(bad, "harmless", REFERENCE.replace("long long total = 0;", "long long total{0};"))
    add_faulty(bad, "typo", REFERENCE.replace("return total;", "return totl;"))
    return folder


def test_each_broken_rule_is_reported_by_task(demo_suite, docker_sandbox):
    v = validate_suite(load_suite(demo_suite), docker_sandbox, workers=2)
    by_slug = {t.slug: t for t in v.tasks}
    assert [t.slug for t in v.tasks] == ["good", "bad"]
    assert by_slug["good"].ok, by_slug["good"].problems
    assert {r.name: r.status.value for r in by_slug["good"].runs} == {
        "reference": "pass", "off-by-one": "fail", "wrong-exception": "fail", "stub": "fail"}
    problems = by_slug["bad"].problems
    assert len(problems) == 4, problems
    assert problems[0].startswith("the reference does not pass: fail: ")
    assert "faulty control 'harmless' passes every test" in problems
    assert any(p.startswith("faulty control 'typo' does not compile: ") and "totl" in p for p in problems)
    assert "the stub passes every test" in problems
    assert [t.slug for t in v.broken] == ["bad"]


def test_cli_exits_1_naming_the_broken_task(demo_suite, tmp_path):
    proc = subprocess.run([HARNESS, "suite", "validate", str(demo_suite), "--sandbox", "docker", "--tasks", "bad",
                           "--out", str(tmp_path / "out")], capture_output=True, text=True)
    assert proc.returncode == 1, proc.stderr
    assert "bad" in proc.stdout and "the stub passes every test" in proc.stdout.replace("\n", " ").replace("│", "")
    saved = json.loads((tmp_path / "out" / "validation.json").read_text())
    assert [t["slug"] for t in saved["tasks"]] == ["bad"]
    proc = subprocess.run([HARNESS, "suite", "validate", str(demo_suite), "--sandbox", "docker", "--tasks", "good"],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_mutants_are_counted_and_survivors_saved(demo_suite, docker_sandbox, tmp_path):
    task = load_suite(demo_suite).task("good")
    expected = generate_mutants(task.reference_files())
    # Starting the loop at 0 adds 0 * 0: an equivalent mutant no test can kill, which the
    # task explains in a note, so it leaves the kill rate's count.
    zero = next(m for m in expected if (m.original, m.replacement) == ("1", "0") and "k = 1" in
                REFERENCE.splitlines()[m.line - 1])
    (demo_suite / "good" / ".meta" / "equivalent-mutants.toml").write_text(
        f'[[equivalent]]\nfile = "{zero.file}"\nline = {zero.line}\noriginal = "1"\nreplacement = "0"\n'
        f'why = "0 * 0 adds nothing"\n')
    out = tmp_path / "report"
    v = validate_suite(load_suite(demo_suite), docker_sandbox, tasks=["good"], mutants=True, workers=2, out=out)
    m = v.tasks[0].mutants
    assert m.generated == len(expected) > 8
    assert m.killed + m.survived == m.compiled <= m.generated
    assert all(s.outcome is MutantOutcome.survived for s in m.survivors)
    noted = [s for s in m.survivors if s.equivalent is not None]
    assert [s.mutant for s in noted] == [zero] and noted[0].equivalent == "0 * 0 adds nothing"
    assert m.equivalent == 1 and m.kill_rate == m.killed / (m.compiled - 1)
    folders = sorted((out / "good" / "survivors").iterdir())
    assert len(folders) == m.survived
    diff = (folders[0] / "mutant.diff").read_text()
    assert diff.startswith("--- a/") and "\n-" in diff and "\n+" in diff
    assert json.loads((out / "validation.json").read_text())["tasks"][0]["mutants"]["killed"] == m.killed


# One task of each kind of build: threads, Boost, TBB, every case unconditional, a class
# split over .h and .cpp, a header-only template.
SAMPLE = ["bank-account", "gigasecond", "parallel-letter-frequency", "zebra-puzzle", "clock", "binary-search-tree"]


def test_fixed26_keeps_its_rules(docker_sandbox):
    """All 26 tasks: about 85 s on an idle 2-core machine (150-250 s when other work shares
    it). HARNESS_VALIDATE_SAMPLE=1 takes a sample of six instead (about 25 s)."""
    suite = find_suite("fixed26")
    tasks = SAMPLE if os.environ.get("HARNESS_VALIDATE_SAMPLE") else None
    v = validate_suite(suite, docker_sandbox, tasks=tasks)
    assert not v.broken, {t.slug: t.problems for t in v.broken}
    assert [t.slug for t in v.tasks] == [t.slug for t in suite.select(tasks)]
    for t in v.tasks:
        ref = next(r for r in t.runs if r.kind.value == "reference")
        assert ref.tests == t.test_cases > 0, t.slug
        assert sum(r.kind.value == "faulty" for r in t.runs) >= 3, t.slug
