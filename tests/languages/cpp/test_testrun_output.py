"""What a test run says when it does not pass, in the Docker sandbox: a failed build shows
the compiler's and make's failing lines and none of the harness's configuration; a task
without a target named after the exercise gets one line saying so; the console
transcript shows what a terminal would, paths as in the exercise's checkout; files the
model created are built, a created CMake file is refused and flagged; one time limit can
cover configure, build and tests together."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from harness.records import Status
from harness.sandbox.base import SandboxLimits
from harness.task import load_task
from harness.languages.cpp.testrun import run_tests

from tests.conftest import GOLDEN, make_backend

pytestmark = [pytest.mark.docker]

TASK = load_task(GOLDEN / "sum-of-squares")
CASES = GOLDEN / "cases"


def case(name: str) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in (CASES / name).iterdir()}


def plain_task(tmp_path: Path, target: str) -> Path:
    """sum-of-squares with a CMakeLists of the upstream kind, which knows nothing of the
    harness's test main (the compile fails before any main is needed)."""
    path = tmp_path / "sum-of-squares"
    shutil.copytree(GOLDEN / "sum-of-squares", path)
    (path / "CMakeLists.txt").write_text(
        "cmake_minimum_required(VERSION 3.14)\nproject(plain CXX)\nfind_package(Catch2 REQUIRED)\n"
        f"add_executable({target} sum_of_squares_test.cpp sum_of_squares.cpp)\n"
        f"target_link_libraries({target} PRIVATE Catch2::Catch2)\n"
        f"if(EXERCISM_RUN_ALL_TESTS)\n  target_compile_definitions({target} PRIVATE EXERCISM_RUN_ALL_TESTS)\nendif()\n")
    return path


@pytest.fixture(scope="module")
def session():
    box = make_backend("docker", SandboxLimits(timeout_s=30, build_timeout_s=240))
    with box.session("testrun-output") as s:
        yield s


def test_a_failed_build_shows_the_compiler_and_make_and_no_harness_noise(tmp_path, session):
    report = run_tests(load_task(plain_task(tmp_path, "sum-of-squares")), case("compile-error"), session, transcript=True)
    assert report.status is Status.error and not report.built
    assert "sum_of_squares.cpp:7:" in report.message and "error: expected" in report.message
    assert "make[2]: ***" in report.message or "gmake[2]: ***" in report.message
    assert "HARNESS_TEST_MAIN" not in report.transcript and "CMake Warning" not in report.transcript
    # The transcript is the console's, paths as in a checkout of the exercise.
    assert "sum-of-squares/sum_of_squares.cpp:7:" in report.transcript
    assert "[ 33%] Building CXX object" in report.transcript or "Building CXX object" in report.transcript
    assert "/src/" not in report.transcript and "/build/" not in report.transcript


def test_no_target_named_after_the_exercise_is_one_line(tmp_path, session):
    report = run_tests(load_task(plain_task(tmp_path, "tests")), case("pass"), session)
    assert report.status is Status.error
    assert report.message == ("the task's CMakeLists.txt defines no target named sum-of-squares (the exercise's name), "
                              "which is the test binary the harness builds and runs")


def test_failing_tests_get_catch2s_console_report_in_the_transcript(session):
    report = run_tests(TASK, case("fail-one"), session, transcript=True)
    assert report.status is Status.failed
    text = report.transcript
    assert "sum-of-squares is a Catch v2" in text and "FAILED:" in text and "338350" in text
    assert "sum-of-squares/sum_of_squares_test.cpp:" in text and "test cases: 4 | 3 passed | 1 failed" in text
    passed = run_tests(TASK, case("pass"), session, transcript=True)
    assert passed.passed and passed.transcript is None  # nothing to feed back


def test_created_files_are_built_and_created_cmake_files_refused(session):
    files = case("pass")
    files["helper.h"] = b"#pragma once\ninline long long square(int k) { return 1LL * k * k; }\n"
    files["sum_of_squares.cpp"] = b'#include "helper.h"\n' + files["sum_of_squares.cpp"].replace(b"k * k", b"square(k)")
    files["extra/CMakeLists.txt"] = b"message(FATAL_ERROR boom)\n"
    report = run_tests(TASK, files, session)
    assert report.passed, report.message
    assert report.tampered == ["extra/CMakeLists.txt"]
    assert (session.staging / TASK.slug / "helper.h").is_file()
    assert not (session.staging / TASK.slug / "extra").exists()


def test_one_limit_covers_build_and_tests(session):
    report = run_tests(TASK, case("infinite-loop"), session, transcript=True, time_limit_s=8)
    assert report.timeout and report.status is Status.error
    assert report.build_seconds + report.run_seconds < 8 + 5
    assert "timed out after" in report.message
