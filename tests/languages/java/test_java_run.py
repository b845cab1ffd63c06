"""Java's test round in its own image: the reference passes every test method (the one
shipped `@Disabled` too, as Aider's benchmark runs it), a wrong answer fails the one it
breaks with the transcript `./gradlew test` prints for it, a program that does not compile
is an error with javac's lines under Gradle's failed task, results.json carries each test
method's code, and the reference's mutants compile and some fail."""

from __future__ import annotations

import pytest

from harness.exercism_results import exercism_results
from harness.languages.registry import language_for
from harness.records import Status
from harness.task import load_task

from ...conftest import make_backend
from .leap import REFERENCE, WRONG, write_leap

pytestmark = [pytest.mark.slow]
SOLUTION = "src/main/java/Leap.java"


@pytest.fixture(scope="module")
def java_round(tmp_path_factory):
    task = load_task(write_leap(tmp_path_factory.mktemp("java")))
    with make_backend("docker").session("java-run", "java") as session:
        yield task, session


def test_the_reference_passes_and_results_json_names_each_test_method(java_round):
    task, session = java_round
    assert task.reference_files() == {SOLUTION: REFERENCE.encode()}
    report = language_for(task).run_tests(task, task.reference_files(), session)
    assert report.passed and [(t.name, t.status) for t in report.tests] == [
        ("commonYear()", Status.passed), ("leapYears()", Status.passed)]
    results = exercism_results(task, report).model_dump()
    assert results["status"] == "pass"
    assert results["tests"][1]["test_code"].startswith("@Test\npublic void leapYears() {\n    assertThat(")


def test_a_wrong_answer_fails_with_the_transcript_gradle_prints(java_round):
    task, session = java_round
    wrong = WRONG.replace("return false;", 'System.out.println("hello");\n        return false;').encode()
    report = language_for(task).run_tests(task, {SOLUTION: wrong}, session, transcript=True)
    assert report.status is Status.failed and not report.forged
    assert [t.status for t in report.tests] == [Status.passed, Status.failed]
    transcript = report.transcript or ""
    assert "\n> Task :test\n\nLeapTest > commonYear() STANDARD_OUT\n    hello\n\nLeapTest > commonYear() PASSED\n" in transcript
    assert ("\nLeapTest > leapYears() FAILED\n    org.opentest4j.AssertionFailedError: \n    Expecting:\n     <false>\n"
            "    to be equal to:\n     <true>\n    but was not.\n") in transcript
    assert "        at app//LeapTest.leapYears(LeapTest.java:16)\n\n2 tests completed, 1 failed\n\n> Task :test FAILED\n" in transcript
    assert transcript.endswith("BUILD FAILED\n")


def test_a_program_that_does_not_compile_is_an_error(java_round):
    task, session = java_round
    report = language_for(task).run_tests(
        task, {SOLUTION: b"class Leap {\n    boolean isLeapYear(int year) { return yr; }\n}\n"}, session, transcript=True)
    assert report.status is Status.error and not report.built
    assert report.transcript is not None and report.transcript.startswith(
        "> Task :compileJava FAILED\nleap/src/main/java/Leap.java:2: error: cannot find symbol\n")
    assert "Execution failed for task ':compileJava'." in report.transcript


def test_the_references_mutants_compile_and_the_tests_kill_some(java_round):
    task, session = java_round
    java = language_for(task)
    mutants = java.mutants({SOLUTION: REFERENCE.encode()})
    assert {m.operator.value for m in mutants} >= {"relational", "logical", "boundary"}
    reports = [java.run_tests(task, m.apply({SOLUTION: REFERENCE.encode()}), session) for m in mutants[:3]]
    assert all(r.built for r in reports) and any(not r.passed for r in reports)
