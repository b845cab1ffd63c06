"""Java's test round in its own image: the reference passes every test method (the one
shipped `@Disabled` too, as Aider's benchmark runs it), a wrong answer fails the one it
breaks with the transcript `./gradlew test` prints for it, a program that does not compile
is an error with javac's lines under Gradle's failed task, results.json carries each test
method's code, and a mutant of the reference compiles and fails."""

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
        ("commonYear()", Status.passed), ("leapYears()", Status.passed), ("centuryOnItsOwn()", Status.passed)]
    results = exercism_results(task, report).model_dump()
    assert results["status"] == "pass"
    assert results["tests"][1]["test_code"].startswith("@Test\npublic void leapYears() {\n    assertThat(")


def test_a_wrong_answer_fails_with_the_transcript_gradle_prints(java_round):
    task, session = java_round
    wrong = WRONG.replace("return false;", 'System.out.println("hello");\n        return false;').encode()
    report = language_for(task).run_tests(task, {SOLUTION: wrong}, session, transcript=True)
    assert report.status is Status.failed and not report.forged
    assert [t.status for t in report.tests] == [Status.passed, Status.failed, Status.passed]
    transcript = report.transcript or ""
    # JUnit's order of a class's methods (a hash of their names), as Gradle prints them.
    assert ("\n> Task :test\n\nLeapTest > centuryOnItsOwn() SKIPPED\n\nLeapTest > commonYear() STANDARD_OUT\n    hello\n\n"
            "LeapTest > commonYear() PASSED\n") in transcript
    assert ("\nLeapTest > leapYears() FAILED\n    org.opentest4j.AssertionFailedError: \n    Expecting:\n     <false>\n"
            "    to be equal to:\n     <true>\n    but was not.\n") in transcript
    assert ("        at app//LeapTest.leapYears(LeapTest.java:16)\n\n3 tests completed, 1 failed, 1 skipped\n\n"
            "> Task :test FAILED\n") in transcript
    assert transcript.endswith("BUILD FAILED\n")


def test_a_program_that_does_not_compile_is_an_error(java_round):
    task, session = java_round
    report = language_for(task).run_tests(
        task, {SOLUTION: b"class Leap {\n    boolean isLeapYear(int year) { return yr; }\n}\n"}, session, transcript=True)
    assert report.status is Status.error and not report.built
    assert report.transcript is not None and report.transcript.startswith(
        "> Task :compileJava FAILED\nleap/src/main/java/Leap.java:2: error: cannot find symbol\n")
    assert "Execution failed for task ':compileJava'." in report.transcript


def test_a_mutant_of_the_reference_compiles_and_fails(java_round):
    task, session = java_round
    java = language_for(task)
    mutants = java.mutants({SOLUTION: REFERENCE.encode()})
    assert {m.operator.value for m in mutants} >= {"relational", "logical", "boundary"}
    first = next(m for m in mutants if m.original == "==")  # year % 4 != 0: 2015 is a leap year
    report = java.run_tests(task, first.apply({SOLUTION: REFERENCE.encode()}), session)
    assert report.built and not report.passed
