"""Written test suites scored by execution (harness/testwriting): hand-written suites for
two fixed26 tasks whose scores are known in advance, each scored exactly in the real
Docker sandbox; the task's own tests with a placeholder for every expected value, filled by
execution, score exactly as the tests themselves; placeholders that cannot be filled say
why; Catch2's assertion totals read from its XML; the CLI's bad input."""

from __future__ import annotations

import re
import statistics

import pytest
from typer.testing import CliRunner

from harness.languages.cpp.catch2 import parse_catch2_xml
from harness.cli import app
from harness.records import AssertionCount
from harness.suite import find_suite
from harness.languages.cpp.objects import object_key
from harness.testwriting.score import ScoredSuite, SuiteToScore, TargetOutcome, score_suites
from harness.testwriting.targets import TargetKind, find_targets
from harness.testwriting.written import with_written_tests

from tests.conftest import ROOT
from tests.report_support import write_run
from tests.test_cli_test import one_line_exit_2

SUITES = ROOT / "tests" / "testwriting"
TASKS = ("perfect-numbers", "allergies")
KINDS = ("strong", "wrong_value", "kills_nothing", "no_compile", "strong_again", "placeholders")
MUTANT_CAP = 10  # a fixed sample (seed 0): the same targets on every run
# Assertions in each task's own test file, and so in its one-wrong-value copy.
ASSERTIONS = {"perfect-numbers": 13, "allergies": 50}
FAULTY = {"perfect-numbers": 4, "allergies": 3}


# The task's own test file with one expected value made wrong: 12 is abundant, not perfect;
# 257 is allergic to eggs only, not to cats.
WRONG_VALUE = {
    "perfect-numbers": ("classify(12) == perfect_numbers::classification::abundant",
                        "classify(12) == perfect_numbers::classification::perfect"),
    "allergies": ('allergy_test(257).get_allergies() == allergy_set{"eggs"}',
                  'allergy_test(257).get_allergies() == allergy_set{"eggs", "cats"}'),
}


# One assertion on one line: REQUIRE(x == y), REQUIRE(x) or REQUIRE_FALSE(x).
_ASSERTION = re.compile(r"^(\s*)REQUIRE(?:_FALSE)?\((.*?)(?: == .*)?\);$", re.M)


def with_placeholders(source: bytes) -> bytes:
    """Every expected value of the one-line assertions written as FILL (a bare truth value
    too: REQUIRE(x) and REQUIRE_FALSE(x) become REQUIRE(x == FILL))."""
    return _ASSERTION.sub(lambda m: f"{m.group(1)}REQUIRE({m.group(2)} == FILL);", source.decode()).encode()


def suite_source(slug: str, kind: str) -> bytes:
    task = find_suite("fixed26").task(slug)
    own = task.read(task.test_files[0])
    if kind == "placeholders":
        return with_placeholders(own)
    if kind.startswith("strong"):
        return own + (b"\n// again\n" if kind == "strong_again" else b"")
    if kind == "wrong_value":
        right, wrong = WRONG_VALUE[slug]
        assert own.count(right.encode()) == 1
        return own.replace(right.encode(), wrong.encode())
    return (SUITES / slug / f"{kind}.cpp").read_bytes()


# --- without a sandbox --------------------------------------------------------------------

_XML = b"""<?xml version="1.0" encoding="UTF-8"?>
<Catch name="t">
  <Group name="t">
    <TestCase name="a" filename="t.cpp" line="3">
      <Section name="s" filename="t.cpp" line="4">
        <OverallResults successes="1" failures="1" expectedFailures="0"/>
      </Section>
      <OverallResult success="false"/>
    </TestCase>
    <OverallResults successes="7" failures="1" expectedFailures="0"/>
    <OverallResultsCases successes="0" failures="1" expectedFailures="0"/>
  </Group>
  <OverallResults successes="7" failures="1" expectedFailures="0"/>
</Catch>
"""


def test_assertion_totals_are_the_runs_not_a_sections():
    run = parse_catch2_xml(_XML)
    assert run.complete and run.assertions == AssertionCount(passed=7, failed=1)


def test_a_report_cut_short_has_no_totals():
    run = parse_catch2_xml(_XML[: _XML.index(b"</TestCase>") + 12])
    assert not run.complete and run.assertions is None and len(run.cases) == 1


def test_the_written_suite_replaces_the_test_file_and_changes_the_content():
    task = find_suite("fixed26").task("perfect-numbers")
    written = with_written_tests(task, b"// nothing\n")
    assert written.read(task.test_files[0]) == b"// nothing\n"
    assert written.read("CMakeLists.txt") == task.read("CMakeLists.txt")
    assert written.slug == task.slug and written.content_hash != task.content_hash
    assert with_written_tests(written, b"x").content_hash == with_written_tests(task, b"x").content_hash


runner = CliRunner()


def test_cli_bad_input_is_one_line_exit_2(tmp_path):
    one_line_exit_2(runner.invoke(app, ["tests", "score", "perfect-numbers", str(tmp_path / "none.cpp")]),
                    "cannot read the test file")
    one_line_exit_2(runner.invoke(app, ["tests", "score", "no-such-task", str(tmp_path)]), "no task 'no-such-task'")
    one_line_exit_2(runner.invoke(app, ["tests", "score", "perfect-numbers", str(SUITES / "perfect-numbers" / "no_compile.cpp"),
                                        "--sandbox", "vm"]), "unknown sandbox 'vm'")


# --- in the Docker sandbox ----------------------------------------------------------------


@pytest.fixture(scope="module")
def scored(docker_sandbox, tmp_path_factory) -> dict[tuple[str, str], ScoredSuite]:
    """Every hand-written suite of both tasks, scored in one go, the target cache in a
    folder of its own."""
    cache = tmp_path_factory.mktemp("cache")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("HARNESS_CACHE_DIR", str(cache))
        # Without the image's compile cache, whatever the environment says: a suite's first
        # build compiles its test unit here, and the targets' builds are timed against that.
        mp.setenv("HARNESS_COMPILE_CACHE", "0")
        suite = find_suite("fixed26")
        items = [(slug, kind) for slug in TASKS for kind in KINDS] + [("perfect-numbers", "unfillable")]
        fill = {"placeholders", "unfillable"}
        # One worker: the later suites of a task find its targets' objects in the session.
        results = score_suites(docker_sandbox, [SuiteToScore(suite.task(s), suite_source(s, k), fill=k in fill)
                                                for s, k in items], workers=1, mutant_cap=MUTANT_CAP)
        # Read back from the cache the scoring just filled: the same targets, no sandbox.
        targets = {slug: find_targets(suite.task(slug), None, mutant_cap=MUTANT_CAP) for slug in TASKS}
    return {"targets": targets, "cache": cache, **dict(zip(items, results))}


@pytest.mark.docker
@pytest.mark.slow
@pytest.mark.parametrize("slug", TASKS)
def test_the_tasks_own_tests_are_valid_and_kill_every_target(scored, slug):
    r, targets = scored[slug, "strong"], scored["targets"][slug]
    assert r.valid and r.why_invalid is None
    assert r.assertions == AssertionCount(passed=ASSERTIONS[slug], failed=0) and r.assertion_accuracy == 1.0
    # Targets are by construction what the task's own tests kill: all of them, and nothing else.
    assert sum(t.kind is TargetKind.faulty for t in targets.targets) == FAULTY[slug]
    assert targets.mutants >= 5 and targets.generated == MUTANT_CAP
    assert [t.name for t in r.targets] == [t.name for t in targets.targets]
    assert r.scored == r.killed == len(targets.targets) and r.kill_rate == 1.0
    # Each target recompiled its solution unit and linked: much cheaper than the suite's first
    # build (the reference's, or the first target's when the reference's drawn place is later).
    # The median, not the mean: one build stalled by a loaded machine must not decide it.
    first = r.reference.seconds if r.reference_position == 0 else r.targets[0].build_seconds
    rest = [t.build_seconds for i, t in enumerate(r.targets) if r.reference_position == 0 or i > 0]
    assert statistics.median(rest) < first
    # The first valid suite of the task compiles them; only a target with the same sources
    # as one before it (a faulty control that a mutant happens to equal) links that one's.
    task, seen, repeats = find_suite("fixed26").task(slug), set(), []
    for t in targets.targets:
        key = object_key(task, t.files(task))
        repeats.append(key in seen)
        seen.add(key)
    assert [t.reused for t in r.targets] == repeats


@pytest.mark.docker
@pytest.mark.slow
@pytest.mark.parametrize("slug", TASKS)
def test_a_later_suite_links_the_objects_compiled_for_an_earlier_one_with_the_same_score(scored, slug):
    first, again = scored[slug, "strong"], scored[slug, "strong_again"]
    # Header mutants change the objects' inputs too: they are reused just the same.
    assert all(t.reused for t in again.targets)
    assert again.valid and again.kill_rate == 1.0 and again.killed == first.killed
    assert [(t.name, t.outcome) for t in again.targets] == [(t.name, t.outcome) for t in first.targets]
    # Kills-nothing came between them and reused every object as well: a wrong object would
    # have turned some survivor into a kill, or a kill into a survivor above.
    assert all(t.reused for t in scored[slug, "kills_nothing"].targets)


@pytest.mark.docker
@pytest.mark.slow
@pytest.mark.parametrize("slug, failing", [("perfect-numbers", "Smallest abundant number is classified correctly"),
                                           ("allergies", "list when: -> no allergen score parts without highest valid score")])
def test_one_wrong_expected_value_makes_the_suite_invalid(scored, slug, failing):
    r = scored[slug, "wrong_value"]
    assert not r.valid and r.why_invalid == f"fail: {failing}"
    n = ASSERTIONS[slug]
    assert r.assertions == AssertionCount(passed=n - 1, failed=1) and r.assertion_accuracy == (n - 1) / n
    assert r.kill_rate is None and r.targets == [] and r.scored == 0  # not run against any target


@pytest.mark.docker
@pytest.mark.slow
@pytest.mark.parametrize("slug", TASKS)
def test_a_suite_that_asserts_nothing_useful_is_valid_and_kills_nothing(scored, slug):
    r = scored[slug, "kills_nothing"]
    assert r.valid and r.assertions == AssertionCount(passed=2, failed=0) and r.assertion_accuracy == 1.0
    assert r.kill_rate == 0.0 and r.killed == 0 and r.scored == len(scored["targets"][slug].targets)
    assert {t.outcome for t in r.targets} == {TargetOutcome.survived}


@pytest.mark.docker
@pytest.mark.slow
@pytest.mark.parametrize("slug, error", [("perfect-numbers", "‘categorize’ is not a member of ‘perfect_numbers’"),
                                         ("allergies", "expected ‘;’ before ‘}’ token")])
def test_a_suite_that_does_not_compile_is_invalid(scored, slug, error):
    r = scored[slug, "no_compile"]
    assert not r.valid and not r.reference.built
    assert r.why_invalid.startswith("does not compile:") and error in r.why_invalid
    assert r.assertions is None and r.assertion_accuracy is None and r.kill_rate is None and r.targets == []


@pytest.mark.docker
@pytest.mark.slow
@pytest.mark.parametrize("slug, placeholders", [("perfect-numbers", 11), ("allergies", 50)])
def test_filling_the_placeholders_by_execution_reproduces_the_strong_suites_score(scored, slug, placeholders):
    strong, filled = scored[slug, "strong"], scored[slug, "placeholders"]
    assert suite_source(slug, "placeholders").count(b"== FILL") == placeholders
    assert filled.fill.placeholders == filled.fill.filled == placeholders and filled.fill.unfilled == []
    assert filled.valid and filled.assertions == strong.assertions and filled.assertion_accuracy == 1.0
    assert (filled.kill_rate, filled.killed, filled.scored) == (strong.kill_rate, strong.killed, strong.scored) == (
        1.0, len(scored["targets"][slug].targets), len(scored["targets"][slug].targets))
    assert [(t.name, t.outcome) for t in filled.targets] == [(t.name, t.outcome) for t in strong.targets]
    # Without the filling the same text does not even compile.
    assert strong.fill is None


@pytest.mark.docker
@pytest.mark.slow
def test_placeholders_that_cannot_be_filled_say_why_and_the_suite_does_not_compile(scored):
    r = scored["perfect-numbers", "unfillable"]
    assert (r.fill.placeholders, r.fill.filled) == (5, 1)
    assert [(u.line, u.why) for u in r.fill.unfilled] == [
        (9, "reached 2 times with different values: one placeholder, one value"),
        (14, "FILL is not inside REQUIRE( ) or CHECK( )"),
        (20, "never reached when the suite ran on the correct solution"),
        (25, "the expression throws std::domain_error on the correct solution: assert that with REQUIRE_THROWS_AS"),
    ]
    assert not r.valid and r.why_invalid.startswith("does not compile:") and "FILL" in r.why_invalid


@pytest.mark.docker
@pytest.mark.slow
def test_cli_scores_a_suite_as_json(scored, tmp_path, monkeypatch):
    # The module's target cache, so the command reads the targets the fixture sorted.
    monkeypatch.setenv("HARNESS_CACHE_DIR", str(scored["cache"]))
    path = tmp_path / "wrong_value.cpp"
    path.write_bytes(suite_source("perfect-numbers", "wrong_value"))
    result = runner.invoke(app, ["tests", "score", "perfect-numbers", str(path), "--sandbox", "docker", "--json",
                                "--mutant-cap", str(MUTANT_CAP)])
    assert result.exit_code == 0, result.output
    r = ScoredSuite.model_validate_json(result.stdout)
    assert not r.valid and r.assertions == AssertionCount(passed=12, failed=1)
    # The targets are known (sorted once per task, cached), but an invalid suite keeps no
    # target's result.
    assert r.targets == [] and r.kill_rate is None and r.reference_position is not None


def test_export_refuses_a_run_of_another_kind_in_one_line(tmp_path):
    repair = write_run(tmp_path, "repair-run", {"gold": {"clock": [1]}})
    one_line_exit_2(runner.invoke(app, ["tests", "export", str(repair), "--out", str(tmp_path / "out")]),
                    "not a test-writing run (its trials are repair trials)")
