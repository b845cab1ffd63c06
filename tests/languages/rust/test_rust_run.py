"""Rust's test round in its own image: the reference passes every test (the ignored ones
run, as `--include-ignored` runs them), a wrong answer fails the one it breaks with the
transcript `cargo test -- --include-ignored` prints (what Aider's benchmark shows a model),
a program that does not compile is an error with cargo's lines, results.json carries each
test's code, and the reference's mutants build and some fail."""

from __future__ import annotations

import pytest

from harness.exercism_results import exercism_results
from harness.languages.registry import language_for
from harness.records import Status
from harness.task import load_task

from ...conftest import make_backend
from .leap import REFERENCE, write_leap

pytestmark = [pytest.mark.slow]


@pytest.fixture(scope="module")
def rust_round(tmp_path_factory):
    task = load_task(write_leap(tmp_path_factory.mktemp("rust")))
    with make_backend("docker").session("rust-run", "rust") as session:
        yield task, session


def test_the_reference_passes_and_results_json_names_each_test(rust_round):
    task, session = rust_round
    report = language_for(task).run_tests(task, task.reference_files(), session)
    assert report.passed and [(t.name, t.status) for t in report.tests] == [
        ("common_year", Status.passed), ("centuries::not_every_century", Status.passed),
        ("centuries::every_fourth_century", Status.passed)]
    results = exercism_results(task, report).model_dump()
    assert results["status"] == "pass" and results["tests"][1]["name"] == "Centuries::not every century"
    assert [t["test_code"] for t in results["tests"][:2]] == [
        "assert!(!is_leap_year(2015));", 'assert!(!is_leap_year(1900), "1900 is not a leap year");']


def test_a_wrong_answer_fails_with_the_transcript_cargo_test_prints(rust_round):
    task, session = rust_round
    wrong = b'pub fn is_leap_year(year: u64) -> bool {\n    println!("hello");\n    year % 4 == 0\n}\n'
    report = language_for(task).run_tests(task, {"src/lib.rs": wrong}, session, transcript=True)
    assert report.status is Status.failed and not report.forged
    assert [t.status for t in report.tests] == [Status.passed, Status.failed, Status.passed]
    failed = exercism_results(task, report).tests[1]  # type: ignore[index]
    assert (failed.output, failed.message) == (
        "hello", "thread 'centuries::not_every_century' panicked at tests/leap.rs:14:9:\n1900 is not a leap year")
    transcript = report.transcript or ""
    assert transcript.startswith("   Compiling leap v1.0.0 (leap)\n    Finished `test` profile [unoptimized + debuginfo] target(s) \n"
                                 "     Running unittests src/lib.rs (target/debug/deps/leap-")
    assert transcript.endswith(
        "\nrunning 3 tests\ntest centuries::every_fourth_century ... ok\ntest centuries::not_every_century ... FAILED\n"
        "test common_year ... ok\n\nfailures:\n\n---- centuries::not_every_century stdout ----\nhello\n\n"
        "thread 'centuries::not_every_century' panicked at tests/leap.rs:14:9:\n1900 is not a leap year\n"
        "note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace\n\n\n"
        "failures:\n    centuries::not_every_century\n\n"
        "test result: FAILED. 2 passed; 1 failed; 0 ignored; 0 measured; 0 filtered out; finished \n\n"
        "error: test failed, to rerun pass `--test leap`\n")


def test_a_program_that_does_not_compile_is_an_error(rust_round):
    task, session = rust_round
    report = language_for(task).run_tests(task, {"src/lib.rs": b"pub fn is_leap_year(year: u64) -> bool { yr }\n"},
                                          session, transcript=True)
    assert report.status is Status.error and not report.built
    assert (report.transcript or "").startswith(
        "   Compiling leap v1.0.0 (leap)\nerror[E0425]: cannot find value `yr` in this scope\n --> src/lib.rs:1:42\n")


def test_the_references_mutants_build_and_the_tests_kill_some(rust_round):
    task, session = rust_round
    rust = language_for(task)
    mutants = rust.mutants({"src/lib.rs": REFERENCE.encode()})
    assert {m.operator.value for m in mutants} >= {"relational", "logical", "boundary"}
    first = mutants[0]  # `year % 4` made `% 5`: 2015 is then a leap year
    assert (first.original, first.replacement) == ("4", "5")
    assert not rust.run_tests(task, first.apply({"src/lib.rs": REFERENCE.encode()}), session).passed
