"""Upstream Exercism C++ exercises vendor Catch2 as test/catch.hpp with their own
test/tests-main.cpp and build without EXERCISM_TEST_SUITE. Such a folder, imported unchanged,
must build, run and validate in the sandbox like our own tasks do."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.suite import import_suite
from harness.validate import validate_suite

pytestmark = [pytest.mark.docker, pytest.mark.slow]

# The layout and switches of an upstream exercise's build: the system Catch2 only under
# EXERCISM_TEST_SUITE, otherwise the vendored main compiled from test/.
CMAKE = """\
cmake_minimum_required(VERSION 3.5.1)
get_filename_component(exercise ${CMAKE_CURRENT_SOURCE_DIR} NAME)
project(${exercise} CXX)
string(REPLACE "-" "_" file ${exercise})

if(EXISTS ${CMAKE_CURRENT_SOURCE_DIR}/${file}.cpp)
    set(exercise_cpp ${file}.cpp)
else()
    set(exercise_cpp "")
endif()

if(EXERCISM_TEST_SUITE)
    find_package(Catch2 REQUIRED)
    add_executable(${exercise} ${file}_test.cpp ${exercise_cpp} ${file}.h)
    target_link_libraries(${exercise} PRIVATE Catch2::Catch2WithMain)
    target_compile_definitions(${exercise} PRIVATE EXERCISM_TEST_SUITE)
else()
    add_executable(${exercise} ${file}_test.cpp ${exercise_cpp} ${file}.h test/tests-main.cpp)
endif()

set_target_properties(${exercise} PROPERTIES CXX_STANDARD 17 CXX_STANDARD_REQUIRED OFF CXX_EXTENSIONS OFF)
set(CMAKE_BUILD_TYPE Debug)
if("${CMAKE_CXX_COMPILER_ID}" STREQUAL "GNU" OR "${CMAKE_CXX_COMPILER_ID}" MATCHES "Clang")
    set_target_properties(${exercise} PROPERTIES COMPILE_FLAGS "-Wall -Wextra -Wpedantic -Werror")
endif()
if(${EXERCISM_RUN_ALL_TESTS})
    target_compile_definitions(${exercise} PRIVATE EXERCISM_RUN_ALL_TESTS)
endif()
add_custom_target(test_${exercise} ALL DEPENDS ${exercise} COMMAND ${exercise})
"""

HEADER = """\
#if !defined(LEAP_H)
#define LEAP_H

namespace leap {

bool is_leap_year(int year);

}  // namespace leap

#endif
"""

FILES = {
    "CMakeLists.txt": CMAKE,
    "leap.h": HEADER,
    "leap.cpp": '#include "leap.h"\n\nnamespace leap {\n\n}  // namespace leap\n',
    ".meta/example.h": HEADER,
    ".meta/example.cpp": (
        '#include "leap.h"\n\nnamespace leap {\n\nbool is_leap_year(int year) {\n'
        "    return year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);\n}\n\n}  // namespace leap\n"
    ),
    ".meta/faulty/every-fourth/leap.cpp": (
        '#include "leap.h"\n\nnamespace leap {\n\nbool is_leap_year(int year) {\n'
        "    return year % 4 == 0;\n}\n\n}  // namespace leap\n"
    ),
    ".meta/config.json": json.dumps({
        "authors": ["harness-tests"],
        "files": {"solution": ["leap.cpp", "leap.h"], "test": ["leap_test.cpp"],
                  "example": [".meta/example.cpp", ".meta/example.h"]},
    }),
    ".docs/instructions.md": "Tell whether a year is a leap year in the Gregorian calendar.\n",
    # Upstream vendors Catch2's single header here; a shim onto the image's copy builds the
    # same way (the test main below still compiles Catch2's implementation itself).
    "test/catch.hpp": "#pragma once\n#include <catch2/catch.hpp>\n",
    "test/tests-main.cpp": '#define CATCH_CONFIG_MAIN\n#include "catch.hpp"\n',
    "leap_test.cpp": """\
#include "leap.h"
#ifdef EXERCISM_TEST_SUITE
#include <catch2/catch.hpp>
#else
#include "test/catch.hpp"
#endif

TEST_CASE("a year not divisible by 4 is common") { REQUIRE_FALSE(leap::is_leap_year(2015)); }

#if defined(EXERCISM_RUN_ALL_TESTS)
TEST_CASE("a year divisible by 100 but not by 400 is common") { REQUIRE_FALSE(leap::is_leap_year(2100)); }

TEST_CASE("a year divisible by 400 is leap") { REQUIRE(leap::is_leap_year(2000)); }
#endif
""",
}


@pytest.fixture
def upstream(tmp_path, monkeypatch) -> Path:
    monkeypatch.setenv("HARNESS_STATE_DIR", str(tmp_path / "state"))
    root = tmp_path / "practice"
    for rel, text in FILES.items():
        path = root / "leap" / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


def test_an_imported_upstream_exercise_builds_and_validates(upstream, docker_sandbox):
    suite = import_suite(upstream, "upstream-style")
    task = suite.task("leap")
    assert "test/catch.hpp" in task.protected_files and "test/tests-main.cpp" in task.protected_files

    v = validate_suite(suite, docker_sandbox, workers=1)
    (result,) = v.tasks
    assert result.ok, result.problems
    assert {r.name: r.status.value for r in result.runs} == {"reference": "pass", "every-fourth": "fail",
                                                             "stub": "error"}
    assert result.test_cases == 3 and result.runs[0].tests == 3
