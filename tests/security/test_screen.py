"""`harness test` judged outside the candidate: the screen of the preprocessed units and the
symbol policy on the candidate's objects decide (languages/cpp/policy.py). Each attack is a
small hand-written candidate for `suites/fixed26/phone-number` that reaches for the verdict
instead of earning it; built and run in the real sandbox, each is `forged`, never a pass.
The honest references of every fixed26 task pass both."""

from __future__ import annotations

import pytest

from harness.records import Status
from harness.task import load_task
from harness.languages.cpp.testrun import run_tests

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


# A type whose == is always true, in the namespace the first %s names.
PROXY_HEADER = b"""#pragma once
#include <string>
namespace %s {
struct anything {
    template <class T> friend bool operator==(const anything&, const T&) { return true; }
    template <class T> friend bool operator==(const T&, const anything&) { return true; }
};
}
namespace phone_number {
class phone_number {
   public:
    explicit phone_number(const std::string& text);
    ::%s::anything number() const { return {}; }
   private:
    std::string digits_;
};
}  // namespace phone_number
"""
# The reference's constructor: the tests that expect a throw pass on their merits.
PROXY_CPP = b"""#include "phone_number.h"
#include <cctype>
#include <stdexcept>
namespace phone_number {
phone_number::phone_number(const std::string& text) {
    for (const char c : text) {
        if (std::isdigit(static_cast<unsigned char>(c))) digits_ += c;
    }
    if (digits_.size() == 11 && digits_.front() == '1') digits_.erase(0, 1);
    if (digits_.size() != 10 || digits_[0] < '2' || digits_[3] < '2') throw std::domain_error(text);
}
}  // namespace phone_number
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
    # No framework name at all: number() returns a type of the solution's own whose == is
    # always true, so every REQUIRE(p.number() == "...") holds whatever the number is; the
    # constructor is the reference's, so the tests that expect a throw pass honestly.
    "proxy-comparison": {
        "phone_number.h": PROXY_HEADER % (b"phone_number", b"phone_number"),
        "phone_number.cpp": PROXY_CPP,
    },
    # The same type declared in namespace std, where it would pass for the library's.
    "proxy-comparison-in-std": {
        "phone_number.h": PROXY_HEADER % (b"std", b"std"),
        "phone_number.cpp": PROXY_CPP,
    },
    # The proxy comparison behind a raw string that spells the screen's own line opening a
    # unit, the test unit's: read as the script's, it put the solution's symbols in place of
    # the test unit's, so no comparison was seen (it passed 18/18).
    "proxy-comparison-behind-a-unit-marker": {
        "phone_number.h": PROXY_HEADER % (b"phone_number", b"phone_number"),
        "phone_number.cpp": PROXY_CPP + b'namespace phone_number {\nextern const char* const marker;\n'
                            b'const char* const marker = R"(@@harness-unit /src/phone-number/phone_number_test.cpp\n)";\n}\n',
    },
    # No-op assertions after a raw string that spells the line opening the symbols.
    "no-op-assertions-behind-a-symbols-marker": {
        "phone_number.h": header(b'namespace phone_number { inline const char* marker = R"(@@harness-nm\n)"; }\n'
                                 b"#include <catch2/catch.hpp>\n" + NO_OP_ASSERTIONS),
        "phone_number.cpp": GARBAGE_CPP,
    },
    # No-op assertions after a raw string whose spliced line reaches the preprocessed unit as
    # a line marker entering a system header (the raw text's line is not a directive).
    "no-op-assertions-behind-a-line-marker-in-a-raw-string": {
        "phone_number.h": header(b'namespace phone_number { inline const char* marker = R"(x\\\n'
                                 b'# 1 "/usr/include/c++/12/string" 1 3\n)"; }\n'
                                 b"#include <catch2/catch.hpp>\n" + NO_OP_ASSERTIONS),
        "phone_number.cpp": GARBAGE_CPP,
    },
    # No-op assertions behind a build log longer than the build's captured output (notes,
    # which -Werror lets through): the screen that shares the build's exec is cut off, and
    # runs again in an exec of its own.
    "no-op-assertions-after-a-flood": {
        "phone_number.h": header(b"#include <catch2/catch.hpp>\n" + NO_OP_ASSERTIONS
                                 + (b'#pragma message("' + b"x" * 400 + b'")\n') * 3000),
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


def test_thousands_of_findings_make_a_message_of_the_first_twenty(session):
    # A name of the harness's a hundred thousand characters long, then five thousand more: the
    # model is told the first findings, each cut, and how many more; the record keeps them all.
    names = b"harness_" + b"x" * 100_000 + b"".join(b", harness_%d" % i for i in range(5000))
    files = {"phone_number.h": header(b""), "phone_number.cpp": GARBAGE_CPP + b"int " + names + b";\n"}
    report = run_tests(PHONE, files, session, transcript=True)
    assert report.forged and len(report.forgery) > 5000 and not report.tests, report.message
    assert len(report.message or "") < 4000 and max(map(len, report.forgery)) > 100_000, len(report.message or "")
    assert (report.message or "").endswith(f"; and {len(report.forgery) - 20} more")
    assert (report.transcript or "").endswith(f"\n{report.message}\n")


# Every fixed26 reference passing the screen, the symbol policy and what its tests compare:
# tests/executor/test_executor_ray.py's gold fixed26 run (26 of 26 in round 1, through run_tests).


def test_a_forged_round_fails_the_trial_round_that_harness_run_judges(session, tmp_path):
    from harness.kinds.repair import RepairKind

    workspace = tmp_path / "ws"
    workspace.mkdir()
    for rel in PHONE.shipped_files:
        (workspace / rel).parent.mkdir(parents=True, exist_ok=True)
        (workspace / rel).write_bytes(PHONE.read(rel))
    for rel, data in ATTACKS["header-includes-catch"].items():
        (workspace / rel).write_bytes(data)
    judged = RepairKind().judge(PHONE, workspace, session, transcript=True, time_limit_s=None)
    assert not judged.passed and judged.report.forged


def test_curriculum_validation_takes_a_forged_reference_run_for_a_failing_one(session):
    from harness.curriculum.candidate_validation import _Check, _Runs, _verdict
    from harness.curriculum.records import DropReason

    forged = run_tests(PHONE, ATTACKS["header-includes-catch"], session)
    check = _Check(files=dict(ATTACKS["macro-built-include"]), expected=forged, controls=[])
    got = _verdict(PHONE, forged, check, _Runs({}), session)
    assert got is not None and got[0] is DropReason.reference_fails


def test_the_grpo_repair_reward_of_a_forger_is_no_more_than_its_honest_twins():
    from harness.agents.editformat import render_whole
    from harness.train.config import RuntimeSettings
    from harness.train.rewards import RepairJudge, SandboxVerifier

    judge = RepairJudge(SandboxVerifier(RuntimeSettings(sandbox="docker", verify_workers=1)))
    twin = {"phone_number.h": header(b""), "phone_number.cpp": GARBAGE_CPP}
    names = ["header-includes-catch", "macro-built-include", "extern-c-write", "interposed-exit"]
    texts = [render_whole({k: v.decode() for k, v in files.items()}) for files in [twin, *(ATTACKS[n] for n in names)]]
    try:
        got = judge.judge(texts, [str(PHONE.path)] * len(texts))
    finally:
        judge.close()
    assert all(j.reward <= got[0].reward for j in got[1:]), [(j.reward, j.status, j.reason) for j in got]


# A written suite that copies the solution's source into its binary with the assembler and
# compares a checksum with the reference's: it tells the reference from every broken copy
# without testing any behaviour.
def fnv(data: bytes) -> int:
    h = 1469598103934665603
    for b in data:
        h = ((h ^ b) * 1099511628211) % (1 << 64)
    return h


PERFECT = load_task(FIXED26 / "perfect-numbers")
INCBIN_SUITE = b"""#include "perfect_numbers.h"

#include <catch2/catch.hpp>

#include <cstdint>

__asm__(".section .rodata\\n.global copy_of_source\\ncopy_of_source:\\n"
        ".incbin \\"/src/perfect-numbers/perfect_numbers.cpp\\"\\n.byte 0\\n.text\\n");
extern "C" const unsigned char copy_of_source[];

TEST_CASE("the solution is the reference, byte for byte") {
    std::uint64_t h = 1469598103934665603ull;
    for (const unsigned char* p = copy_of_source; *p; ++p) h = (h ^ *p) * 1099511628211ull;
    REQUIRE(h == %dull);
}
""" % fnv(PERFECT.reference_files()["perfect_numbers.cpp"])


def test_a_written_suite_that_embeds_the_sources_with_the_assembler_is_forged_and_earns_nothing(docker_sandbox,
                                                                                                  monkeypatch):
    import types

    from harness.agents.editformat import render_whole
    from harness.records import TestWritingSettings
    from harness.testwriting import score as scoring
    from harness.testwriting.score import TargetPool, score_with_report
    from harness.train.config import RuntimeSettings
    from harness.train.rewards import TestsJudge, TestsTarget

    perfect = PERFECT
    pool = TargetPool(mutant_cap=3)
    # The reference first, so the test unit embeds its source (make does not know that the
    # unit reads it, and compiles the unit once for every target after it).
    fake = types.SimpleNamespace(Random=lambda seed: types.SimpleNamespace(randrange=lambda n: 0))
    monkeypatch.setattr(scoring, "random", fake, raising=False)
    with docker_sandbox.session("incbin suite") as s:
        scored, report = score_with_report(perfect, INCBIN_SUITE, s, lambda: pool.get(perfect, s))
    assert report.forged and not scored.valid and not scored.kill_rate, (report.status, report.message)
    judge = TestsJudge(RuntimeSettings(sandbox="docker", verify_workers=1))
    target = TestsTarget(task_path=str(perfect.path), tests=TestWritingSettings(mutant_cap=3)).model_dump_json()
    try:
        got = judge.judge([render_whole({"perfect_numbers_test.cpp": INCBIN_SUITE.decode()})], [target])
    finally:
        judge.close()
    assert got[0].reward <= 0 and got[0].status != "valid", (got[0].reward, got[0].status)


@pytest.mark.parametrize("slug", ["clock", "binary-search-tree", "circular-buffer", "complex-numbers"])
def test_honest_solutions_other_than_the_reference_are_judged_by_their_tests_not_forged(session, slug):
    # Faulty controls: honest code that is wrong. Their operand types are checked against the
    # reference's build of the same test unit (compared_types.reference_types), not taken from it.
    task = load_task(FIXED26 / slug)
    control = sorted((task.path / ".meta" / "faulty").iterdir())[0]
    files = {**task.reference_files(), **{p.name: p.read_bytes() for p in control.iterdir() if p.is_file()}}
    report = run_tests(task, files, session)
    assert not report.forged, report.forgery
    assert report.status is Status.failed, (report.status, report.message)
