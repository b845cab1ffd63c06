"""Upstream Exercism C++ exercises vendor Catch2 as test/catch.hpp with their own
test/tests-main.cpp, and switch to a system Catch2 under EXERCISM_TEST_SUITE. Such a folder,
imported unchanged, must build, run and validate in the sandbox like our own tasks do."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.suite import import_suite
from harness.suite_validation import validate_suite

from tests.upstream_layout import CMAKE, INCLUDE_SWITCH, TESTS_MAIN

pytestmark = [pytest.mark.docker, pytest.mark.slow]

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
    # Upstream vendors Catch2's single header here; a shim onto the image's copy stands in.
    "test/catch.hpp": "#pragma once\n#include <catch2/catch.hpp>\n",
    "test/tests-main.cpp": TESTS_MAIN,
    "leap_test.cpp": """\
#include "leap.h"
""" + INCLUDE_SWITCH + """
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
