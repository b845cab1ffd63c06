"""The curriculum's pure parts: the failure taxonomy on real gcc diagnostics and Catch2
outcomes (as the sandbox reported them for broken versions of the golden task), the
reproduction rule, near-duplicate normal forms, the per-task cap, and bad input refused in
one line."""

from __future__ import annotations

import subprocess

import pytest

from harness.curriculum.normalize import interface_names, normalized_hash
from harness.curriculum.taxonomy import FailureKind, classify, same_failure
from harness.languages.registry import language_for
from harness.records import Status, TestCaseResult, TestReport
from harness.task import load_task

from tests.conftest import GOLDEN
from tests.languages.python.tally import write_tally
from tests.train_support import HARNESS

TASK = load_task(GOLDEN / "sum-of-squares")
NAMES = ["sum of nothing is zero", "sum of the first ten", "sum of the first hundred", "negative input is rejected"]


def build_error(log: str) -> TestReport:
    return TestReport(status=Status.error, message=log, exit_code=2, build_seconds=1.0)


def run(failing: dict[str, str], status: Status = Status.failed, message: str | None = None,
        timeout: bool = False) -> TestReport:
    tests = [TestCaseResult(name=n, status=Status.failed if n in failing else Status.passed, message=failing.get(n))
             for n in NAMES]
    return TestReport(status=status, built=True, tests=tests, message=message, timeout=timeout, run_seconds=0.2, build_seconds=1.0)


IN_FN = "sum_of_squares.cpp: In function 'long long int sum_of_squares::sum(int)':\n"
COMPILE = {
    FailureKind.syntax_error: IN_FN + "sum_of_squares.cpp:10:53: error: expected primary-expression before ';' token",
    FailureKind.missing_include: IN_FN + "sum_of_squares.cpp:7:27: error: 'domain_error' is not a member of 'std'",
    FailureKind.missing_declaration: IN_FN + "sum_of_squares.cpp:10:49: error: 'square' was not declared in this scope",
    FailureKind.signature_mismatch: (
        "In file included from sum_of_squares_test.cpp:1:\n"
        "sum_of_squares_test.cpp:8:32: error: too few arguments to function "
        "'long long int sum_of_squares::sum(int, int)'\nsum_of_squares.h:5:11: note: declared here"),
    FailureKind.missing_definition: (
        "/usr/bin/ld: CMakeFiles/sum-of-squares.dir/sum_of_squares_test.cpp.o: in function `C_A_T_C_H_T_E_S_T_0()':\n"
        "sum_of_squares_test.cpp:8: undefined reference to `sum_of_squares::sum(int)'\n"
        "collect2: error: ld returned 1 exit status"),
    FailureKind.type_error: IN_FN + "sum_of_squares.cpp:11:12: error: cannot convert 'std::string' "
                                    "{aka 'std::__cxx11::basic_string<char>'} to 'long long int' in return",
    FailureKind.warning_as_error: IN_FN + "sum_of_squares.cpp:9:30: error: unused variable 'unused' "
                                          "[-Werror=unused-variable]\ncc1plus: all warnings being treated as errors",
}
THROWS = "sum_of_squares_test.cpp:21: REQUIRE_THROWS_AS( sum_of_squares::sum(-1), std::domain_error )"
VALUE = "sum_of_squares_test.cpp:13: REQUIRE( sum_of_squares::sum(10) == 385 )\nwith expansion:\n  285 == 385"


@pytest.mark.parametrize("kind", list(COMPILE))
def test_compile_errors_are_named_by_their_first_diagnostic(kind):
    failure = classify(build_error(COMPILE[kind]))
    assert failure.kind is kind
    assert failure.detail in COMPILE[kind]  # the line it was read from


def test_test_failures_are_named_by_their_outcomes():
    assert classify(run({NAMES[3]: THROWS})).kind is FailureKind.wrong_exception
    assert classify(run({NAMES[3]: THROWS + "\ndue to unexpected exception: negative"})).kind is FailureKind.wrong_exception
    assert classify(run({NAMES[1]: VALUE, NAMES[2]: VALUE})).kind is FailureKind.wrong_value
    # only the case named for the empty input fails: a boundary case
    assert classify(run({NAMES[0]: "REQUIRE( sum(0) == 0 )"})).kind is FailureKind.wrong_value_boundary
    # every test failing is not a boundary problem, whatever the names say
    every = {n: VALUE for n in NAMES}
    assert classify(run(every)).kind is FailureKind.wrong_value
    crash = run({NAMES[1]: "fatal error condition: SIGSEGV", NAMES[2]: "not run", NAMES[3]: "not run"},
                status=Status.error, message="the test binary was killed by SIGSEGV during or after 'sum of the first ten'")
    assert classify(crash).kind is FailureKind.crash
    hung = run({}, status=Status.error, message="the test run timed out after 10 s and was killed", timeout=True)
    assert classify(hung).kind is FailureKind.timeout
    with pytest.raises(ValueError):
        classify(run({}, status=Status.passed))


def test_same_failure_wants_the_same_tests_or_the_same_kind_of_compile_error():
    ten = run({NAMES[1]: VALUE})
    assert same_failure(ten, run({NAMES[1]: "other text"})) is None
    assert "no longer fails sum of the first ten" in same_failure(ten, run({NAMES[2]: VALUE}))
    assert "also fails sum of the first hundred" in same_failure(ten, run({NAMES[1]: VALUE, NAMES[2]: VALUE}))
    assert same_failure(ten, run({}, status=Status.passed)) == "the starting code passes every test"
    assert "compile error" in same_failure(ten, build_error(COMPILE[FailureKind.syntax_error]))
    syntax = build_error(COMPILE[FailureKind.syntax_error])
    assert same_failure(syntax, build_error(COMPILE[FailureKind.syntax_error].replace("10:53", "12:1"))) is None
    assert "syntax-error compile error, got missing-include" in same_failure(
        syntax, build_error(COMPILE[FailureKind.missing_include]))
    assert "but it builds" in same_failure(syntax, ten)


REF = (GOLDEN / "sum-of-squares" / ".meta" / "example.cpp").read_text()
CPP = language_for(TASK)
KEEP = interface_names(CPP, [*TASK.stub_files().values(), TASK.read("sum_of_squares_test.cpp")])


def h(cpp: str) -> str:
    return normalized_hash(CPP, {"sum_of_squares.cpp": cpp.encode(), "sum_of_squares.h": TASK.read("sum_of_squares.h")}, KEEP)


def test_near_duplicates_share_a_hash_and_real_differences_do_not():
    renamed = (REF.replace("total", "acc").replace("long long k", "long long i").replace("k <= n", "i <= n")
               .replace("k * k", "i * i").replace("++k", "++i"))
    commented = REF.replace("long long total = 0;", "// running sum\n    long long   total = 0;  /* start */")
    assert renamed != REF and h(renamed) == h(REF) and h(commented) == h(REF)
    assert h(REF.replace("k <= n", "k < n")) != h(REF)                     # an operator
    assert h(REF.replace("#include <stdexcept>\n", "")) != h(REF)          # an include
    assert h(REF.replace("domain_error", "invalid_argument")) != h(REF)    # a library name
    # the interface keeps its names: the function the tests call is not a local
    assert h(REF.replace("long long sum(int n)", "long long summ(int n)")) != h(REF)


def test_bad_options_are_refused_in_one_line(tmp_path):
    for args, words in [
        (["build", "nope", "--out", "x", "--runs-dir", str(tmp_path)], "no such run"),
        (["build", "nope", "--out", "Bad Name"], "not a curriculum name"),
        (["synth", "--suite", "fixed26", "--out", "x", "--failure-kinds", "typo"], "unknown failure kind 'typo'"),
        (["synth", "--suite", "fixed26", "--out", "x", "--tasks", "phone-number", "--hold-out", "phone-number"],
         "every selected task is held out"),
        (["show", "absent", "--root", str(tmp_path)], "no curriculum 'absent'"),
    ]:
        done = subprocess.run([HARNESS, "curriculum", *args], capture_output=True, text=True, cwd=tmp_path, timeout=60)
        assert done.returncode == 2, (args, done.stdout, done.stderr)
        assert words in done.stderr and len(done.stderr.strip().splitlines()) == 1, done.stderr


# --- Python -------------------------------------------------------------------------------

PY = ["tally_test.py::test_add", "tally_test.py::test_words", "tally_test.py::test_empty_text",
      "tally_test.py::TallyTest::test_total"]
# The first lines of messages the sandbox's pytest gave broken versions of tests/languages/python/tally.py.
COLLECTION = ("collection failure\ntally_test.py:5: in <module>\n    from tally import Tally, add, words\n"
              "E     File \"tally/tally.py\", line 2\nE       return a +\nE                 ^\nE   {}")
PY_FAILURES = {
    FailureKind.syntax_error: COLLECTION.format("SyntaxError: invalid syntax"),
    FailureKind.missing_include: COLLECTION.format("ModuleNotFoundError: No module named 'nosuchmod'"),
    FailureKind.missing_declaration: "NameError: name 'c' is not defined\n@pytest.mark.task(taskno=1)",
    FailureKind.signature_mismatch: "TypeError: add() missing 1 required positional argument: 'c'",
    FailureKind.type_error: "TypeError: unsupported operand type(s) for +: 'int' and 'str'",
    FailureKind.wrong_exception: "ValueError: no\n@pytest.mark.task(taskno=1)",
    FailureKind.timeout: ("_harness_proxy.proxies.CallTimeout: the candidate's process gave no answer within "
                          "3.33333 s, or used up its total time, and was ended"),
    FailureKind.wrong_value: "AssertionError: assert ['a', 'b', '', 'c'] == ['a', 'b', 'c']",
}


def py_report(failing: dict[str, str], status: Status = Status.failed) -> TestReport:
    names = PY if "tally_test" not in failing else ["tally_test"]
    return TestReport(status=status, built=True, tests=[
        TestCaseResult(name=n, status=Status.failed if n in failing else Status.passed, message=failing.get(n))
        for n in names])


@pytest.mark.parametrize("kind", list(PY_FAILURES))
def test_python_failures_are_named_by_the_exception_pytest_reports(kind):
    message = PY_FAILURES[kind]
    report = (py_report({"tally_test": message}, Status.error) if message.startswith("collection")
              else py_report({PY[0]: message}))
    failure = classify(report)
    assert failure.kind is kind, failure
    assert failure.detail.startswith(report.failing()[0].name)


def test_python_assertions_about_exceptions_and_boundary_cases():
    for message in ("Failed: DID NOT RAISE <class 'ValueError'>", "AssertionError: ValueError not raised"):
        assert classify(py_report({PY[0]: message})).kind is FailureKind.wrong_exception
    assert classify(py_report({PY[2]: "AssertionError: assert [''] == []"})).kind is FailureKind.wrong_value_boundary
    assert classify(py_report({PY[0]: "NameError: name 'math' is not defined"})).kind is FailureKind.missing_include
    # A C++ name with "::" is still read as Catch2's.
    cpp = TestReport(status=Status.failed, built=True, tests=[TestCaseResult(
        name="sum_of_squares::sum", status=Status.failed, message="ValueError: in a Catch2 message")])
    assert classify(cpp).kind is FailureKind.wrong_value


TALLY_LOCALS = '''def words(text):
    parts = text.split()
    kept = [p for p in parts if p]
    return kept
'''


def test_python_near_duplicates_share_a_hash_and_real_differences_do_not(tmp_path):
    python = language_for(write_tally(tmp_path))
    keep = interface_names(python, [b"def words(text):\n    pass\n", b"from tally import words\nwords('a')\n"])

    def ph(code: str) -> str:
        return normalized_hash(python, {"tally.py": code.encode(), "notes.txt": b"a  b"}, keep)

    renamed = TALLY_LOCALS.replace("parts", "pieces").replace("kept", "out").replace("p for p in pieces if p",
                                                                                     "w for w in pieces if w")
    laid_out = TALLY_LOCALS.replace("    parts = text.split()\n", "    # split on whitespace\n\n    parts = text.split( )\n")
    assert renamed != TALLY_LOCALS and ph(renamed) == ph(TALLY_LOCALS) == ph(laid_out)
    assert ph(TALLY_LOCALS.replace("if p]", "if not p]")) != ph(TALLY_LOCALS)                # an operator
    assert ph(TALLY_LOCALS.replace("def words(text)", "def wordz(text)")) != ph(TALLY_LOCALS)  # the interface
    assert ph("import re\n" + TALLY_LOCALS) != ph("import os\n" + TALLY_LOCALS)                # an import
    assert ph(TALLY_LOCALS.replace("    return kept", "return kept")) != ph(TALLY_LOCALS)     # a block's end
    assert ph("def words(text):\n    return text.split(\n") == ph("def  words(text):\n    return text.split(\n")

