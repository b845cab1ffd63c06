"""Go's test round in its own image: the reference passes every test, a wrong answer fails
the subtests it breaks with the transcript plain `go test` prints (what Aider's benchmark
shows a model), a program that does not compile is an error with the compiler's lines,
results.json lists each subtest with its own code as Exercism's Go runner does, and the
reference's mutants build and some fail."""

from __future__ import annotations

import pytest

from harness.exercism_results import exercism_results
from harness.languages.registry import language_for
from harness.records import Status
from harness.sandbox.base import Role
from harness.task import load_task

from ...conftest import make_backend
from .leap import REFERENCE, WRONG, write_leap

pytestmark = [pytest.mark.slow]


@pytest.fixture(scope="module")
def go_round(tmp_path_factory):
    task = load_task(write_leap(tmp_path_factory.mktemp("go")))
    with make_backend("docker").session("go-run", "go") as session:
        yield task, session


def test_the_reference_passes_and_results_json_lists_each_subtest_as_exercisms_runner_does(go_round):
    task, session = go_round
    report = language_for(task).run_tests(task, task.reference_files(), session)
    assert report.passed and [(t.name, t.status) for t in report.tests] == [
        ("TestCommonYear", Status.passed), ("TestLeapYears/divisible_by_4", Status.passed),
        ("TestLeapYears/divisible_by_400", Status.passed)]
    results = exercism_results(task, report).model_dump()
    assert results["status"] == "pass"
    assert [t["name"] for t in results["tests"]] == [
        "TestCommonYear", "TestLeapYears/ divisible by 4", "TestLeapYears/ divisible by 400"]
    assert results["tests"][0]["test_code"].startswith("func TestCommonYear(t *testing.T) {")
    # The subtest's own struct and the body given to t.Run, as the runner shows a subtest.
    assert results["tests"][2]["test_code"] == (
        "func TestLeapYears(t *testing.T) {\n"
        "\ttc := struct {\n\t\tdescription string\n\t\tyear        int\n"
        '\t}{description: "divisible by 400", year: 2000}\n\n'
        "\tif !IsLeap(tc.year) {\n\t\tt.Errorf(\"%d is a leap year\", tc.year)\n\t}\n\n}")


def test_a_wrong_answer_fails_with_the_transcript_go_test_prints(go_round):
    task, session = go_round
    wrong = f'package leap\n\nimport "fmt"\n\nfunc init() {{ fmt.Println("hello") }}\n\n{WRONG}'.encode()
    report = language_for(task).run_tests(task, {"leap.go": wrong}, session, transcript=True)
    assert report.status is Status.failed and not report.forged
    assert [(t.status, t.message) for t in report.tests] == [
        (Status.passed, None), (Status.failed, "leap_test.go:23: 1996 is a leap year"),
        (Status.failed, "leap_test.go:23: 2000 is a leap year")]
    assert report.transcript == (
        "hello\n"
        "--- FAIL: TestLeapYears (0.00s)\n"
        "    --- FAIL: TestLeapYears/divisible_by_4 (0.00s)\n"
        "        leap_test.go:23: 1996 is a leap year\n"
        "    --- FAIL: TestLeapYears/divisible_by_400 (0.00s)\n"
        "        leap_test.go:23: 2000 is a leap year\n"
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


def test_the_build_cache_outlives_the_trial_and_is_the_builders_alone(go_round):
    """The session keeps Go's build cache from trial to trial (reset empties the build tree,
    not /cache): what a trial compiled is there for the next; the runner cannot read it."""
    task, session = go_round
    assert language_for(task).run_tests(task, task.reference_files(), session).passed
    entries = ["sh", "-c", "find /cache/go -type f | wc -l"]
    before = int(session.exec(entries, role=Role.builder, timeout_s=30).output)
    session.reset()
    assert int(session.exec(entries, role=Role.builder, timeout_s=30).output) == before > 100
    assert session.exec(["ls", "/cache/go"], role=Role.runner, timeout_s=30).exit_code != 0
    assert language_for(task).run_tests(task, task.reference_files(), session).passed
    assert int(session.exec(entries, role=Role.builder, timeout_s=30).output) == before  # nothing new to compile
