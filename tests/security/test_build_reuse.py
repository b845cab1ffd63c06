"""What a C++ build reuses cannot stand in for a candidate's own program.

A build reuses compiled units twice over: make, in a warm session, skips a unit none of
whose recorded dependencies changed; and the image's compile cache (ccache, in a volume
that every container of the image shares, with HARNESS_COMPILE_CACHE=1) hands out an
object compiled before from the same inputs. Both decide "the same inputs" from the files
a compile read. A file that a candidate creates can change what an include finds without
changing any file an earlier compile read: `#include "cstdlib"` finds the system's header
until the workspace has a file of that name. Here candidate A's header includes "cstdlib"
and passes; candidate B is A's files and a created `cstdlib` whose overload of `twice`
changes the answer: B's own program fails, and that is its verdict, after A in the same
session and in a fresh one. The cache's key holds the names of the staged tree's files
besides the content of those a compile read; so an answer that differs from a cached one
only in its .cpp is handed the cached test unit and links its own .cpp, and one whose
header reads that .cpp compiles its test unit again.

CMake decides at configure time from which files exist (`if(EXISTS ...)`, `file(GLOB
...)`), and a warm session configured a task's tree once: a created .cpp that the build
files glob is compiled after the same files without it passed.

The verifier's probe keeps its own record of what each unit was built from (what the
harness staged, not what make saw). A created file is part of it, and so is a candidate's
.cpp wherever its own header can read it: after A in the same session, B earns what its
own program earns, whether B differs from A by a created file that an include finds or
by a .cpp that A's and B's header includes.

The runner, which runs the candidate's code, can neither read nor write the cache: a
test binary that looks there finds it closed."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from harness.records import Status
from harness.sandbox.base import Role
from harness.task import load_task
from harness.languages.cpp.testrun import run_tests
from harness.verify import VerdictStatus, verify_in_session

from tests.conftest import ROOT, make_backend
from tests.loop_support import write_toy_suite

pytestmark = [pytest.mark.slow]

HONEST = '#pragma once\n#include "cstdlib"\n\nnamespace toy {\n\ninline long long twice(long long x) { return 2 * x; }\n\n}\n'
# Found before the system's <cstdlib> once it exists beside the header; its int overload
# is a better match for the tests' int literals than the header's long long one.
SHADOW = '#pragma once\n#include <cstdlib>\n\nnamespace toy {\n\ninline long long twice(int x) { return 3LL * x; }\n\n}\n'
# A candidate whose answer is right only where the runner can open the cache's folder.
PEEKS = ('#pragma once\n#include <dirent.h>\n#include <fstream>\n\nnamespace toy {\n\n'
         'inline long long twice(long long x) {\n'
         '    std::ofstream("/ccache/planted") << "x";\n'
         '    DIR* d = opendir("/ccache");\n'
         '    if (d == nullptr) return 0;\n'
         '    closedir(d);\n'
         '    return 2 * x;\n}\n\n}\n')


@pytest.fixture(scope="module")
def twice(tmp_path_factory):
    return load_task(write_toy_suite(tmp_path_factory.mktemp("reuse")) / "twice")


@pytest.fixture(scope="module")
def globbing(tmp_path_factory):
    """`twice`, whose build files compile every `extra_*.cpp` beside them, as a project's
    CMakeLists may: CMake globs when it configures, and not again."""
    return load_task(globbing_extra_units(write_toy_suite(tmp_path_factory.mktemp("glob")) / "twice"))


def globbing_extra_units(task: Path) -> Path:
    """The task folder, its CMakeLists.txt made to compile every `extra_*.cpp` beside it."""
    cmake = task / "CMakeLists.txt"
    cmake.write_text(cmake.read_text() + "file(GLOB extra ${CMAKE_CURRENT_SOURCE_DIR}/extra_*.cpp)\n"
                                          "target_sources(${exercise} PRIVATE ${extra})\n")
    return task


@pytest.mark.parametrize("backend", ["docker", "local"])
def test_a_created_file_that_the_build_files_find_is_built_in_a_warm_session(globbing, backend):
    with make_backend(backend).session("build reuse, glob") as session:
        assert run_tests(globbing, {"solution.h": HONEST.encode()}, session).status is Status.passed
        broken = run_tests(globbing, {"solution.h": HONEST.encode(), "extra_unit.cpp": b"#error not a unit\n"}, session)
        assert broken.status is Status.error, broken.message
        assert run_tests(globbing, {"solution.h": HONEST.encode()}, session).status is Status.passed


@pytest.mark.parametrize("backend", ["docker", "local"])
def test_a_created_file_that_changes_an_include_is_built_in_a_warm_session(twice, backend):
    box = make_backend(backend)
    with box.session("build reuse, warm") as session:
        assert run_tests(twice, {"solution.h": HONEST.encode()}, session).status is Status.passed
        shadowed = run_tests(twice, {"solution.h": HONEST.encode(), "cstdlib": SHADOW.encode()}, session)
        assert shadowed.status is Status.failed, shadowed.message
        assert run_tests(twice, {"solution.h": HONEST.encode()}, session).status is Status.passed


PHONE = load_task(ROOT / "suites" / "fixed26" / "phone-number")


def shadowed_by_a_created_file() -> tuple[dict[str, bytes], dict[str, bytes]]:
    """A: the reference, its .cpp including "cstdlib"; B: A and a `cstdlib`, found first
    by that include, that makes every `domain_error` an `invalid_argument`."""
    honest = PHONE.reference_files()
    honest["phone_number.cpp"] = b'#include "cstdlib"\n' + honest["phone_number.cpp"]
    renames = b'#pragma once\n#include <cstdlib>\n#include <stdexcept>\n#define domain_error invalid_argument\n'
    return honest, {**honest, "cstdlib": renames}


def read_through_the_header() -> tuple[dict[str, bytes], dict[str, bytes]]:
    """A: the reference's definitions made inline in a guarded .cpp that the header
    includes, so the test unit compiles them too; B: the same header, the .cpp throwing
    `invalid_argument`. The linker keeps one copy of an inline function: the test unit's."""
    ref = PHONE.reference_files()
    header = ref["phone_number.h"].replace(b"#endif", b'#include "phone_number.cpp"\n\n#endif')
    source = (b"#if !defined(PHONE_NUMBER_CPP)\n#define PHONE_NUMBER_CPP\n" + ref["phone_number.cpp"]
              .replace(b"phone_number::phone_number(const", b"inline phone_number::phone_number(const")
              .replace(b"std::string phone_number::number()", b"inline std::string phone_number::number()") + b"#endif\n")
    wrong = source.replace(b"throw std::domain_error", b"throw std::invalid_argument")
    assert header != ref["phone_number.h"] and b"inline" in source and wrong != source
    return {"phone_number.h": header, "phone_number.cpp": source}, {"phone_number.h": header, "phone_number.cpp": wrong}


@pytest.mark.parametrize("backend", ["docker", "local"])
@pytest.mark.parametrize("pair", [shadowed_by_a_created_file, read_through_the_header], ids=lambda f: f.__name__)
def test_the_verifiers_probe_never_keeps_another_candidates_unit(backend, pair):
    honest, other = pair()
    with make_backend(backend).session("probe reuse, warm") as session:
        first = verify_in_session(PHONE, honest, session)
        changed = verify_in_session(PHONE, other, session)
        again = verify_in_session(PHONE, honest, session)
    assert (first.status, first.reward) == (again.status, again.reward) == (VerdictStatus.ok, 1.0)
    assert changed.reward < 1.0 and changed.checks_passed < first.checks_passed, changed


@pytest.mark.parametrize("backend", ["docker", "local"])
def test_a_created_file_that_the_build_files_find_is_in_the_verifiers_probe(tmp_path, backend):
    phone = load_task(globbing_extra_units(Path(shutil.copytree(PHONE.path, tmp_path / PHONE.slug))))
    with make_backend(backend).session("probe reuse, glob") as session:
        first = verify_in_session(phone, phone.reference_files(), session)
        broken = verify_in_session(phone, {**phone.reference_files(), "extra_unit.cpp": b"#error not a unit\n"}, session)
        again = verify_in_session(phone, phone.reference_files(), session)
    assert (first.status, first.reward) == (again.status, again.reward) == (VerdictStatus.ok, 1.0)
    assert broken.status is VerdictStatus.compile_error, broken


@pytest.fixture
def compile_cache(monkeypatch):
    monkeypatch.setenv("HARNESS_COMPILE_CACHE", "1")


def test_a_created_file_that_changes_an_include_misses_the_compile_cache(twice, docker_sandbox, compile_cache):
    with docker_sandbox.session("build reuse, A") as session:
        first = run_tests(twice, {"solution.h": HONEST.encode()}, session)
    with docker_sandbox.session("build reuse, A again") as session:
        before = _cache_hits(session)
        again = run_tests(twice, {"solution.h": HONEST.encode()}, session)
        hits = _cache_hits(session) - before
    # A's compile was kept: the fresh session is handed its object (the premise of B's case).
    assert first.status is again.status is Status.passed and hits > 0
    with docker_sandbox.session("build reuse, B") as session:
        shadowed = run_tests(twice, {"solution.h": HONEST.encode(), "cstdlib": SHADOW.encode()}, session)
    assert shadowed.status is Status.failed, shadowed.message


def only_the_source_differs() -> tuple[dict[str, bytes], dict[str, bytes]]:
    """A: the reference; B: the same files, its .cpp throwing `invalid_argument`. Their
    test units read the same files: B is handed A's, and links its own .cpp."""
    honest = PHONE.reference_files()
    wrong = honest["phone_number.cpp"].replace(b"throw std::domain_error", b"throw std::invalid_argument")
    assert wrong != honest["phone_number.cpp"]
    return honest, {**honest, "phone_number.cpp": wrong}


@pytest.mark.parametrize("pair", [only_the_source_differs, read_through_the_header, shadowed_by_a_created_file],
                         ids=lambda f: f.__name__)
def test_an_answer_after_a_cached_one_is_judged_by_its_own_program(pair, docker_sandbox, compile_cache):
    """The cache's key holds the names of the tree's files and the content of those a
    compile read: B after A, each in a fresh session, fails as its own program does, and
    A again is handed every unit it compiled."""
    honest, other = pair()
    with docker_sandbox.session("build reuse, A") as session:
        assert run_tests(PHONE, honest, session).status is Status.passed
    with docker_sandbox.session("build reuse, B") as session:
        before = _cache_hits(session)
        changed = run_tests(PHONE, other, session)
        b_hits = _cache_hits(session) - before
    with docker_sandbox.session("build reuse, A again") as session:
        before = _cache_hits(session)
        again = run_tests(PHONE, honest, session)
        a_hits = _cache_hits(session) - before
    assert changed.status is Status.failed, changed.message
    assert again.status is Status.passed and a_hits >= 2  # its test unit and its .cpp
    if pair is only_the_source_differs:
        assert b_hits >= 1  # A's test unit: B's files are A's names, and its test unit reads only A's header


def test_the_runner_can_neither_read_nor_plant_in_the_compile_cache(twice, docker_sandbox, compile_cache):
    with docker_sandbox.session("build reuse, peeks") as session:
        peeked = run_tests(twice, {"solution.h": PEEKS.encode()}, session)
        planted = session.exec(["sh", "-c", "ls -A /ccache | grep -c planted"], role=Role.builder, timeout_s=30)
    assert peeked.status is Status.failed, peeked.message
    assert planted.output.decode().strip() == "0"


def _cache_hits(session) -> int:
    got = session.exec(["ccache", "--print-stats"], role=Role.builder, timeout_s=30)
    stats = dict(line.split("\t", 1) for line in got.output.decode().splitlines() if "\t" in line)
    return int(stats.get("direct_cache_hit", "0"))
