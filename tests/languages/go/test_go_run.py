"""Go's test round in its own image: the reference passes every test function, a wrong
answer fails the one it breaks with the transcript plain `go test` prints (what Aider's
benchmark shows a model), a program that does not compile is an error with the compiler's
lines, results.json carries each test function's code, and the reference's mutants build
and some fail."""

from __future__ import annotations

import pytest

from harness.exercism_results import exercism_results
from harness.languages.registry import language_for
from harness.records import Status
from harness.task import load_task

from ...conftest import make_backend
from .leap import REFERENCE, WRONG, write_leap

pytestmark = [pytest.mark.slow]


@pytest.fixture(scope="module")
def go_round(tmp_path_factory):
    task = load_task(write_leap(tmp_path_factory.mktemp("go")))
    with make_backend("docker").session("go-run", "go") as session:
        yield task, session


def test_the_reference_passes_and_results_json_names_each_test_function(go_round):
    task, session = go_round
    report = language_for(task).run_tests(task, task.reference_files(), session)
    assert report.passed and [(t.name, t.status) for t in report.tests] == [
        ("TestCommonYear", Status.passed), ("TestLeapYears", Status.passed)]
    results = exercism_results(task, report).model_dump()
    assert results["status"] == "pass"
    assert results["tests"][1]["test_code"].startswith("func TestLeapYears(t *testing.T) {")


def test_a_wrong_answer_fails_with_the_transcript_go_test_prints(go_round):
    task, session = go_round
    wrong = f'package leap\n\nimport "fmt"\n\nfunc init() {{ fmt.Println("hello") }}\n\n{WRONG}'.encode()
    report = language_for(task).run_tests(task, {"leap.go": wrong}, session, transcript=True)
    assert report.status is Status.failed and not report.forged
    assert [t.status for t in report.tests] == [Status.passed, Status.failed]
    assert report.transcript == (
        "hello\n"
        "--- FAIL: TestLeapYears (0.00s)\n"
        "    --- FAIL: TestLeapYears/year (0.00s)\n"
        "        leap_test.go:15: 1996 is a leap year\n"
        "    --- FAIL: TestLeapYears/year#01 (0.00s)\n"
        "        leap_test.go:15: 2000 is a leap year\n"
        "FAIL\nFAIL\tleap\nFAIL\n")


def test_a_program_that_does_not_compile_is_an_error(go_round):
    task, session = go_round
    report = language_for(task).run_tests(task, {"leap.go": b"package leap\n\nfunc IsLeap(year int) bool { return yr }\n"},
                                          session, transcript=True)
    assert report.status is Status.error and not report.built
    assert report.transcript == "# leap [leap.test]\n./leap.go:3:37: undefined: yr\nFAIL\tleap [build failed]\nFAIL\n"


def test_a_program_go_vet_rejects_fails_to_build_as_under_go_test(go_round):
    task, session = go_round
    vetted = (REFERENCE.replace("package leap\n", 'package leap\n\nimport "fmt"\n')
              + 'func Name() string { return fmt.Sprintf("%d", "x") }\n')
    report = language_for(task).run_tests(task, {"leap.go": vetted.encode()}, session, transcript=True)
    assert report.status is Status.error and not report.built
    assert 'fmt.Sprintf format %d has arg "x" of wrong type string' in report.transcript


def test_the_references_mutants_build_and_the_tests_kill_some(go_round):
    task, session = go_round
    go = language_for(task)
    mutants = go.mutants({"leap.go": REFERENCE.encode()})
    assert {m.operator.value for m in mutants} >= {"relational", "logical", "boundary"}
    killed = [not go.run_tests(task, m.apply({"leap.go": REFERENCE.encode()}), session).passed for m in mutants[:3]]
    assert any(killed)
