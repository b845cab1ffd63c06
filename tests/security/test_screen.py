"""`harness test` judged outside the candidate: the screen of the preprocessed units and the
symbol policy on the candidate's objects decide (languages/cpp/policy.py). Each attack is a
small hand-written candidate for `suites/fixed26/phone-number` that reaches for the verdict
instead of earning it; built and run in the real sandbox, each is `forged`, never a pass.
The honest references of every fixed26 task pass both."""

from __future__ import annotations

import pytest

from harness.records import Status
from harness.task import load_task
from harness.testrun import run_tests

from ..conftest import ROOT

pytestmark = [pytest.mark.slow, pytest.mark.docker]

FIXED26 = ROOT / "suites" / "fixed26"
PHONE = load_task(FIXED26 / "phone-number")
# A solution that answers nothing right: every test fails unless the verdict is forged.
GARBAGE_CPP = b"""#include "phone_number.h"

namespace phone_number {
phone_number::phone_number(const std::string&) {}
std::string phone_number::number() const { return "0"; }
}  // namespace phone_number
"""
HEADER = b"""#pragma once
#include <string>
%s
namespace phone_number {
class phone_number {
   public:
    explicit phone_number(const std::string& text);
    std::string number() const;
};
}  // namespace phone_number
"""
NO_OP_ASSERTIONS = b"""#undef REQUIRE
#undef CHECK
#undef REQUIRE_THROWS_AS
#define REQUIRE(...) (void)0
#define CHECK(...) (void)0
#define REQUIRE_THROWS_AS(...) (void)0
"""


def header(extra: bytes) -> bytes:
    return HEADER % extra


ATTACKS = {
    # Issue 28's: the header includes Catch2 itself and turns the assertions into nothing.
    "header-includes-catch": {
        "phone_number.h": header(b"#include <catch2/catch.hpp>\n" + NO_OP_ASSERTIONS),
        "phone_number.cpp": GARBAGE_CPP,
    },
    # The same, with the include built by a macro and the directives spelled with digraphs
    # and line splices: a screen of the raw text sees no `#include <catch...>` or `#define REQUIRE`.
    "macro-built-include": {
        "phone_number.h": header(b"#define STR(x) <x>\n#define PATH(a, b) STR(a/b.hpp)\n"
                                 b"%:include PATH(catch2,catch)\n%:undef REQ\\\nUIRE\n"
                                 b"%:def\\\nine REQ\\\nUIRE(...) (void)0\n"
                                 b"%:undef REQUIRE_THROWS_AS\n%:define REQUIRE_THROWS_AS(...) (void)0\n"),
        "phone_number.cpp": GARBAGE_CPP,
    },
    # The framework's macros redefined before Catch2 is read, without including it.
    "disable-catch-before-it-is-read": {
        "phone_number.h": header(b"#define CATCH_CONFIG_DISABLE\n"),
        "phone_number.cpp": GARBAGE_CPP,
    },
    # A definition inside the framework's namespace: Catch2's result handler replaced by a
    # more specialised overload would be one; any declaration there is refused.
    "namespace-catch": {
        "phone_number.h": header(b"namespace Catch { inline int harness_was_here() { return 1; } }\n"),
        "phone_number.cpp": GARBAGE_CPP,
    },
    # The C library's write() interposed: every byte the reporter writes passes through it.
    "extern-c-write": {
        "phone_number.h": header(b""),
        "phone_number.cpp": GARBAGE_CPP + b"""
#include <cstddef>
extern "C" long write(int, const void*, std::size_t n) { return static_cast<long>(n); }
""",
    },
    # _exit and atexit replaced, hidden from a raw-text screen by a macro-built name.
    "interposed-exit": {
        "phone_number.h": header(b""),
        "phone_number.cpp": GARBAGE_CPP + b"""
#define CAT(a, b) a##b
#define LINKAGE extern "C"
LINKAGE void CAT(_, exit)(int) { for (;;) {} }
LINKAGE int CAT(at, exit)(void (*)()) { return 0; }
""",
    },
    # A strong definition in Catch's namespace in the solution unit, with an asm label.
    "asm-label": {
        "phone_number.h": header(b""),
        "phone_number.cpp": GARBAGE_CPP + b"""
int replacement() __asm__("_ZN5Catch14isDebuggerActiveEv");
int replacement() { return 0; }
""",
    },
    # A line marker that poses the header as a system header while it redefines REQUIRE.
    "line-marker": {
        "phone_number.h": header(b"#pragma GCC system_header\n# 1 \"/usr/include/c++/12/string\" 1 3\n#include <catch2/catch.hpp>\n"
                                 + NO_OP_ASSERTIONS),
        "phone_number.cpp": GARBAGE_CPP,
    },
}


@pytest.fixture(scope="module")
def session(docker_sandbox):
    with docker_sandbox.session("screen") as s:
        yield s


@pytest.mark.parametrize("name", sorted(ATTACKS))
def test_a_candidate_that_reaches_for_the_verdict_is_forged_not_passed(session, name):
    report = run_tests(PHONE, ATTACKS[name], session)
    assert not report.passed, f"{name}: {report.status} {report.message}"
    assert report.forged and report.forgery, f"{name}: not forged: {report.status} {report.message}"
    assert report.status is Status.failed


def test_the_honest_phone_number_passes_after_the_attacks_in_the_same_session(session):
    report = run_tests(PHONE, PHONE.reference_files(), session)
    assert report.passed and not report.forged, report.forgery


def test_every_fixed26_reference_passes_the_screen_and_the_symbol_policy(docker_sandbox):
    tasks = sorted(p for p in FIXED26.iterdir() if (p / ".meta").is_dir())
    assert len(tasks) == 26
    failed = {}
    with docker_sandbox.session("screen fixed26") as s:
        for path in tasks:
            task = load_task(path)
            report = run_tests(task, task.reference_files(), s)
            if not report.passed or report.forged:
                failed[task.slug] = (report.status, report.forgery, (report.message or "")[:300])
    assert not failed, failed
