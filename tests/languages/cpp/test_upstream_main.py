"""Imported upstream exercises link the sandbox's precompiled Catch2 main through their own
EXERCISM_TEST_SUITE branch instead of compiling Catch2's main from the vendored single
header in every fresh build tree. That must not change a single outcome: the same tasks,
built both ways (the upstream way: test/tests-main.cpp with Catch2's single header from
Debian's package vendored as test/catch.hpp), give the same per-test results for the
reference, every faulty control and the stub."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest

from harness.paths import bundled_dir
from harness.records import Status, TestMain, TestReport
from harness.sandbox.base import Role, SandboxLimits
from harness.task import load_task
from harness.languages.cpp.cmake import has_exercism_test_suite_branch
from harness.languages.cpp.testrun import run_tests, linked_test_main

from tests.conftest import make_backend
from tests.upstream_layout import INCLUDE_SWITCH_V3, upstream_copy

pytestmark = [pytest.mark.docker, pytest.mark.slow, pytest.mark.timeout(1800)]

FIXED26 = bundled_dir("suites") / "fixed26"


@pytest.fixture(scope="module")
def debian_catch_hpp(docker_sandbox) -> bytes:
    """Catch2's single header as Debian packages it, the header the sandbox's main is built from."""
    with docker_sandbox.session("debian catch.hpp") as s:
        got = s.exec(["cat", "/usr/include/catch2/catch.hpp"], role=Role.builder, timeout_s=30, cap=4 << 20)
    assert got.exit_code == 0 and not got.truncated and b"CATCH_VERSION_MAJOR 2" in got.output
    return got.output


@pytest.fixture(scope="module")
def patient_sandbox():
    """Compiling Catch2's implementation, as the upstream way does for every task, can take
    minutes on a busy 2-core machine."""
    return make_backend("docker", SandboxLimits(build_timeout_s=900))


def outcomes(report: TestReport) -> tuple:
    return report.status, [(t.name, t.status, t.message) for t in report.tests]


def candidates(task) -> dict[str, dict[str, bytes]]:
    out = {"reference": task.reference_files()}
    for folder in sorted((task.path / ".meta" / "faulty").iterdir()):
        out[folder.name] = {p.name: p.read_bytes() for p in folder.iterdir()}
    out["stub"] = task.stub_files()
    return out


def test_the_precompiled_main_gives_the_outcomes_of_the_upstream_build(tmp_path, docker_sandbox, patient_sandbox,
                                                                       debian_catch_hpp):
    # One task keeps the test command lean (the upstream way compiles Catch2's main);
    # tests/bench/compare_upstream_main.py does this for every upstream exercise.
    slug = "phone-number"
    task = load_task(upstream_copy(FIXED26 / slug, tmp_path, debian_catch_hpp))
    on_disk = {p: p.read_bytes() for p in sorted(task.path.rglob("*")) if p.is_file()}
    content_hash = task.content_hash

    with docker_sandbox.session(f"precompiled main {slug}") as fast, patient_sandbox.session(f"upstream way {slug}") as upstream:
        upstream.catch2_with_main = False  # so the task's own main is compiled, as upstream does
        seen = {}
        for name, files in candidates(task).items():
            # Each session is its own container with its own CPU: both ways at once.
            with ThreadPoolExecutor(2) as both:
                got, want = both.map(lambda s: run_tests(task, files, s), (fast, upstream))
            assert (got.test_main, want.test_main) == (TestMain.catch2, TestMain.task)
            assert outcomes(got) == outcomes(want), name
            seen[name] = got.status
            # The fast way also takes Catch2 precompiled where it may (test_catch_pch.py).
            assert got.catch_precompiled == (name != "stub") and not want.catch_precompiled, name
    assert seen.pop("reference") is Status.passed and seen.pop("stub") is Status.error
    assert seen and set(seen.values()) == {Status.failed}, seen

    reloaded = load_task(task.path)
    assert reloaded.content_hash == content_hash
    assert {p: p.read_bytes() for p in sorted(task.path.rglob("*")) if p.is_file()} == on_disk


def test_tests_without_the_include_switch_keep_their_own_main(tmp_path, docker_sandbox, debian_catch_hpp):
    """A test that always includes the vendored header would mix two copies of Catch2 if
    linked against the system's main: such a task builds the upstream way."""
    switched = load_task(upstream_copy(FIXED26 / "clock", tmp_path / "a", debian_catch_hpp))
    plain = load_task(upstream_copy(FIXED26 / "clock", tmp_path / "b", debian_catch_hpp, switch=False))
    ours = load_task(FIXED26 / "clock")
    with docker_sandbox.session("test main choice") as s:
        assert [linked_test_main(t, s) for t in (switched, plain, ours)] == [TestMain.catch2, TestMain.task, TestMain.harness]


def test_a_catch2_v3_include_builds_on_the_tasks_own_branch(tmp_path, docker_sandbox, patient_sandbox,
                                                           debian_catch_hpp):
    """A test whose EXERCISM_TEST_SUITE branch includes <catch2/catch_all.hpp> (Catch2 v3,
    as Exercism's current C++ runner builds) cannot build against the image's Catch2 v2:
    it builds on the task's own branch, with the Catch2 it vendors, and its reference passes."""
    task = load_task(upstream_copy(FIXED26 / "clock", tmp_path, debian_catch_hpp, switch=INCLUDE_SWITCH_V3))
    assert not has_exercism_test_suite_branch(task)
    with docker_sandbox.session("v3 choice") as s:
        assert linked_test_main(task, s) is TestMain.task
    with patient_sandbox.session("v3 build") as s:
        report = run_tests(task, task.reference_files(), s)
    assert report.status is Status.passed and report.test_main is TestMain.task, report.message
    assert len(report.tests) > 10 and all(t.status is Status.passed for t in report.tests)
