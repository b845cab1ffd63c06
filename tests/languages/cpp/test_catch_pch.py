"""A test unit takes Catch2 precompiled only where that compiles the same program as the
Exercism build, in which the solution header comes first: the decision on hand-written
files, the image's facts it rests on, and the same reports both ways, in the sandbox,
for references, faulty controls, stubs and headers written to catch the decision out."""

from __future__ import annotations

import pytest

from harness.languages.cpp.catch_pch import PchFacts, precompiled_unit
from harness.paths import bundled_dir
from harness.records import Status
from harness.task import load_task
import harness.languages.cpp.testrun as testrun

FIXED26 = bundled_dir("suites") / "fixed26"

FACTS = PchFacts(neutral_headers=frozenset({"string", "vector", "stdexcept", "cstddef"}),
                 config_diff=frozenset({"CATCH_CONFIG_GLOBAL_NEXTAFTER"}),
                 names=frozenset({"Catch", "REQUIRE", "CHECK", "INFO", "TEST_CASE", "StringRef"}))

TEST = b'''#include "greeting.h"

#include <catch2/catch.hpp>

TEST_CASE("greets") { REQUIRE(greeting::hello() == "hi"); }
'''
UPSTREAM_TEST = b'''// the Exercism layout
#include "greeting.h"
#ifdef EXERCISM_TEST_SUITE
#include <catch2/catch.hpp>
#else
#include "test/catch.hpp"
#endif

TEST_CASE("greets") { REQUIRE(greeting::hello() == "hi"); }
'''
HEADER = b'''#if !defined(GREETING_H)
#define GREETING_H

#include <string>
#include "detail/parts.h"  // a header of the workspace

namespace greeting {
std::string hello();
inline bool polite() { return true; }
}  // namespace greeting

#endif
'''
PARTS = b'''#pragma once
#include <vector>
namespace greeting::detail { struct Part { std::vector<int> xs; }; }
'''


def files_with(header: bytes = HEADER, test: bytes = TEST, parts: bytes = PARTS) -> dict[str, bytes]:
    return {"greeting_test.cpp": test, "greeting.h": header, "greeting.cpp": b'#include "greeting.h"\n',
            "detail/parts.h": parts}


def test_a_plain_header_lets_the_unit_take_catch2_precompiled():
    assert precompiled_unit("greeting_test.cpp", files_with(), FACTS) == "greeting.h"
    assert precompiled_unit("greeting_test.cpp", files_with(test=UPSTREAM_TEST), FACTS) == "greeting.h"
    guarded = HEADER.replace(b"#if !defined(GREETING_H)", b"#ifndef GREETING_H")
    assert precompiled_unit("greeting_test.cpp", files_with(header=guarded), FACTS) == "greeting.h"


@pytest.mark.parametrize("why, header", [
    ("a declaration at global scope", HEADER.replace(b"namespace greeting {", b"int counter;\nnamespace greeting {")),
    ("using namespace std at global scope", HEADER.replace(b"namespace greeting {", b"using namespace std;\nnamespace greeting {")),
    ("a global operator", HEADER.replace(b"namespace greeting {",
                                        b"std::string operator+(std::string, int);\nnamespace greeting {")),
    ("reopening std", HEADER.replace(b"namespace greeting {", b"namespace std { struct mine; }\nnamespace greeting {")),
    ("a macro of its own", HEADER.replace(b"#include <string>", b"#include <string>\n#define LOUD 1")),
    ("a conditional", HEADER.replace(b"#include <string>", b"#ifdef NDEBUG\n#include <string>\n#endif")),
    ("a header the image did not vouch for", HEADER.replace(b"<string>", b"<boost/date_time.hpp>")),
    ("a name of Catch2's", HEADER.replace(b"inline bool polite()", b"enum Level { INFO };\ninline bool polite()")),
    ("a header outside the workspace", HEADER.replace(b'"detail/parts.h"', b'"test/catch.hpp"')),
    ("a guard named like Catch2's macros", HEADER.replace(b"GREETING_H", b"CHECK")),
])
def test_a_header_that_could_tell_keeps_the_unit_as_it_is(why, header):
    assert precompiled_unit("greeting_test.cpp", files_with(header=header), FACTS) is None, why


def test_what_the_header_includes_counts_and_so_does_the_test_file():
    assert precompiled_unit("greeting_test.cpp", files_with(parts=PARTS + b"int loose;\n"), FACTS) is None
    catch_first = b'#include <catch2/catch.hpp>\n#include "greeting.h"\n'
    assert precompiled_unit("greeting_test.cpp", files_with(test=catch_first), FACTS) is None
    code_first = b'int x;\n' + TEST
    assert precompiled_unit("greeting_test.cpp", files_with(test=code_first), FACTS) is None
    names_the_config = TEST + b"#ifdef CATCH_CONFIG_GLOBAL_NEXTAFTER\n#endif\n"
    assert precompiled_unit("greeting_test.cpp", files_with(test=names_the_config), FACTS) is None
    assert precompiled_unit("greeting_test.cpp", files_with(), PchFacts(frozenset(), frozenset(), frozenset())) is None


# --- in the sandbox ---------------------------------------------------------------------


def test_the_image_knows_which_standard_headers_leave_catch2_as_it_was(docker_sandbox):
    with docker_sandbox.session("pch facts") as s:
        facts = s.catch_pch_facts()
    assert facts is not None and {"string", "vector", "map", "stdexcept", "iostream"} <= facts.neutral_headers
    # What a standard header changes in Catch2: the config of code only its main compiles.
    assert facts.config_diff == {"CATCH_CONFIG_GLOBAL_NEXTAFTER", "CATCH_INTERNAL_CONFIG_GLOBAL_NEXTAFTER"}
    assert {"Catch", "REQUIRE", "TEST_CASE", "Catch_global_namespace_dummy"} <= facts.names


def _report(task, files, session, precompiled: bool, monkeypatch):
    if precompiled:
        monkeypatch.delenv("HARNESS_CATCH_PCH", raising=False)
    else:
        monkeypatch.setenv("HARNESS_CATCH_PCH", "0")
    return testrun.run_tests(task, files, session, transcript=True)


def _seen(report):
    return (report.status, report.message, [(t.name, t.status, t.message, t.output) for t in report.tests],
            report.output, report.exit_code, report.transcript)


def _tricky_headers(reference_h: bytes) -> dict[str, bytes]:
    """Variants of a reference header, each of which the decision must see through."""
    first_namespace = reference_h.index(b"namespace ")
    return {
        # Compiles only when something included <string> before it: upstream it cannot.
        "missing include": reference_h.replace(b"#include <string>", b""),
        "using namespace std": reference_h[:first_namespace] + b"using namespace std;\n" + reference_h[first_namespace:],
        "a global operator<<": reference_h[:first_namespace]
        + b"#include <ostream>\n#include <vector>\ninline std::ostream& operator<<(std::ostream& o, const std::vector<int>&)"
          b" { return o << \"vec\"; }\n" + reference_h[first_namespace:],
        "a macro Catch2 uses": reference_h[:first_namespace] + b"#define CATCH_CONFIG_FAST_COMPILE\n"
        + reference_h[first_namespace:],
    }


@pytest.mark.docker
@pytest.mark.slow
@pytest.mark.timeout(1200)
def test_the_same_reports_with_catch2_precompiled_as_without(docker_sandbox, monkeypatch):
    task = load_task(FIXED26 / "phone-number")
    header = "phone_number.h"
    candidates = {"reference": task.reference_files(), "stub": task.stub_files()}
    for folder in sorted((task.path / ".meta" / "faulty").iterdir()):
        candidates[folder.name] = {**task.reference_files(), **{p.name: p.read_bytes() for p in folder.iterdir()}}
    for name, text in _tricky_headers(task.reference_files()[header]).items():
        candidates[name] = {**task.reference_files(), header: text}

    precompiled, status = {}, {}
    with docker_sandbox.session("pch") as fast, docker_sandbox.session("as it is") as plain:
        for name, files in candidates.items():
            fast.reset()
            plain.reset()
            got = _report(task, files, fast, True, monkeypatch)
            want = _report(task, files, plain, False, monkeypatch)
            assert not want.catch_precompiled
            assert _seen(got) == _seen(want), name
            precompiled[name], status[name] = got.catch_precompiled, got.status
            # A second round in the same tree, as a trial's round 2 has it.
            again = _report(task, files, fast, True, monkeypatch)
            assert _seen(again)[:5] == _seen(want)[:5], name
    assert precompiled.pop("reference") is True
    assert all(precompiled.pop(f.name) for f in (task.path / ".meta" / "faulty").iterdir())
    # The stub does not build: built again as it is, it reads as the Exercism build does.
    assert precompiled.pop("stub") is False
    assert precompiled == {name: False for name in _tricky_headers(b"namespace ")}
    assert status["missing include"] is Status.error and status["reference"] is Status.passed
