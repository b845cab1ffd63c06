"""What a C++ build reuses cannot stand in for a candidate's own program.

make, in a warm session, skips a unit none of whose recorded dependencies changed: it
decides "the same inputs" from the files the unit's last compile read. A file that a
candidate creates can change what an include finds without changing any file an earlier
compile read: `#include "cstdlib"` finds the system's header until the workspace has a
file of that name. Here candidate A's header includes "cstdlib" and passes; candidate B is
A's files and a created `cstdlib` whose overload of `twice` changes the answer: B's own
program fails, and that is its verdict, after A in the same session."""

from __future__ import annotations

import pytest

from harness.records import Status
from harness.task import load_task
from harness.languages.cpp.testrun import run_tests

from tests.conftest import make_backend
from tests.loop_support import write_toy_suite

pytestmark = [pytest.mark.slow]

HONEST = '#pragma once\n#include "cstdlib"\n\nnamespace toy {\n\ninline long long twice(long long x) { return 2 * x; }\n\n}\n'
# Found before the system's <cstdlib> once it exists beside the header; its int overload
# is a better match for the tests' int literals than the header's long long one.
SHADOW = ('#pragma once\n#include <cstdlib>\n\nnamespace toy {\n\ninline long long twice(int x) { return 3LL * x; }\n\n}\n')


@pytest.fixture(scope="module")
def twice(tmp_path_factory):
    return load_task(write_toy_suite(tmp_path_factory.mktemp("reuse")) / "twice")


@pytest.mark.parametrize("backend", ["docker", "local"])
def test_a_created_file_that_changes_an_include_is_built_in_a_warm_session(twice, backend):
    box = make_backend(backend)
    with box.session("build reuse, warm") as session:
        assert run_tests(twice, {"solution.h": HONEST.encode()}, session).status is Status.passed
        shadowed = run_tests(twice, {"solution.h": HONEST.encode(), "cstdlib": SHADOW.encode()}, session)
        assert shadowed.status is Status.failed, shadowed.message
        assert run_tests(twice, {"solution.h": HONEST.encode()}, session).status is Status.passed

