"""When a test unit may take Catch2 precompiled, and still compile to the same program.

Parsing Catch2's single header is two thirds of compiling an Exercism test unit, and a
precompiled header would take it out, but GCC can use one only as the first thing a unit
reads, and every Exercism test reads the solution's header first, Catch2 second. Taking
Catch2 precompiled means Catch2 first, then the header, and that is the same program
only when neither can tell which came first. This module decides that for a round's
files, conservatively (anything it cannot vouch for is compiled as it is):

- the test file begins with the solution header's include and then Catch2's, as the
  Exercism layout has it (the test's own code comes after both either way);
- the header, and every header of the workspace it includes, declares nothing at global
  scope: only named namespaces (not `std`, not Catch2's), so no name either side looks up
  at global scope can find the other's; inside them, anything;
- its preprocessor lines are an include guard or `#pragma once` and includes, of headers
  of the workspace or of standard headers that the image found leave Catch2 as it was
  (catch-pch-facts.sh: Catch2's own lines preprocess to the same tokens after any of
  them, and its macros but two config macros no test unit uses end up the same); it
  defines no macro of its own (so Catch2 cannot see it) and names no identifier of
  Catch2's (its macros, its global names), so it cannot see Catch2;
- the test file names neither of those two config macros.

The launcher in the image (languages/cpp/assets/harness-cxx) checks the rest: the unit's flags
are the ones the facts hold for, and the header compiles on its own, as it must when it
comes first. A build that fails with Catch2 precompiled is built again the upstream way,
so a failing round's messages are the upstream build's, word for word."""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass
from typing import Mapping

from .files import is_source
from .lexer import tokenize

FACTS_DIR = "/opt/harness/pch"  # in the image; written by catch-pch-facts.sh

_INCLUDE = re.compile(r'#\s*include\s*([<"])([^>"]+)[>"]\s*$')
_GUARD_IF = re.compile(r"#\s*(?:ifndef\s+(\w+)|if\s+!\s*defined\s*\(?\s*(\w+)\s*\)?)\s*$")
_DEFINE = re.compile(r"#\s*define\s+(\w+)\s*$")
_ENDIF = re.compile(r"#\s*endif\s*$")
_ONCE = re.compile(r"#\s*pragma\s+once\s*$")
_CATCH_INCLUDES = ("#include <catch2/catch.hpp>",)
_EXERCISM_BRANCH = ("#ifdef EXERCISM_TEST_SUITE", "#include <catch2/catch.hpp>", "#else", '#include "test/catch.hpp"', "#endif")


@dataclass(frozen=True)
class PchFacts:
    """What the image found about its compiler and Catch2 (catch-pch-facts.sh)."""

    neutral_headers: frozenset[str]  # standard headers that may come before Catch2
    config_diff: frozenset[str]      # Catch2 config macros such a header changes
    names: frozenset[str]            # identifiers a solution header must not use

    @classmethod
    def parse(cls, files: Mapping[str, bytes]) -> "PchFacts":
        def lines(name: str) -> frozenset[str]:
            return frozenset(x.strip() for x in files.get(name, b"").decode().split() if x.strip())

        return cls(lines("neutral-headers"), lines("config-diff"), lines("names"))

    @property
    def usable(self) -> bool:
        return bool(self.neutral_headers)


def _directive(token_text: str) -> str:
    """A directive without its comments, spaces collapsed; continuation lines joined."""
    text = token_text.replace("\\\n", " ")
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    text = re.sub(r"//.*", "", text)
    return " ".join(text.split())


def _significant(text: str):
    return [t for t in tokenize(text) if t.kind != "comment"]


def _opening_directives(text: str, n: int) -> list[str] | None:
    """The first `n` tokens of a file as directives, or None when code comes sooner."""
    out = []
    for t in _significant(text)[:n]:
        if t.kind != "pp":
            return None
        out.append(_directive(t.text))
    return out if len(out) == n else None


def test_unit_header(test_text: str, files: Mapping[str, bytes]) -> str | None:
    """The workspace header a test file includes first, when the file opens with it and
    then with Catch2 (plainly, or through the Exercism layout's EXERCISM_TEST_SUITE
    branch), and None otherwise."""
    first = _opening_directives(test_text, 1 + len(_EXERCISM_BRANCH))
    short = _opening_directives(test_text, 2)
    if short is None:
        return None
    m = _INCLUDE.match(short[0])
    if not m or m.group(1) != '"' or m.group(2) not in files or is_source(m.group(2)):
        return None
    if tuple(short[1:2]) == _CATCH_INCLUDES or (first is not None and tuple(first[1:]) == _EXERCISM_BRANCH):
        return m.group(2)
    return None


def _plain_header(rel: str, files: Mapping[str, bytes], facts: PchFacts, seen: set[str]) -> bool:
    """Whether a workspace header, and the workspace headers it includes, are of the kind
    the module's docstring describes."""
    if rel in seen:
        return True
    seen.add(rel)
    tokens = _significant(files[rel].decode(errors="replace"))
    directives = [(i, _directive(t.text)) for i, t in enumerate(tokens) if t.kind == "pp"]
    guard = None
    if len(directives) >= 3:
        (i0, d0), (i1, d1) = directives[0], directives[1]
        m0, m1 = _GUARD_IF.match(d0), _DEFINE.match(d1)
        if m0 and m1 and (m0.group(1) or m0.group(2)) == m1.group(1) and i0 == 0 and i1 == 1 \
                and _ENDIF.match(directives[-1][1]) and directives[-1][0] == len(tokens) - 1:
            guard = m1.group(1)
            directives = directives[2:-1]
    if guard is not None and guard in facts.names:
        return False
    for _, d in directives:
        if _ONCE.match(d):
            continue
        m = _INCLUDE.match(d)
        if not m:
            return False
        if m.group(1) == "<":
            if m.group(2) not in facts.neutral_headers:
                return False
            continue
        target = posixpath.normpath(posixpath.join(posixpath.dirname(rel), m.group(2)))
        if target not in files or is_source(target) or not _plain_header(target, files, facts, seen):
            return False
    code = [t for t in tokens if t.kind != "pp"]
    if any(t.kind == "ident" and t.text in facts.names for t in code):
        return False
    return _only_namespaces(code, facts)


def _only_namespaces(code, facts: PchFacts) -> bool:
    """Whether the code at global scope is named namespaces (nested names allowed) and
    empty declarations, and nothing else."""
    i, n = 0, len(code)
    while i < n:
        if code[i].text == ";":
            i += 1
            continue
        if code[i].text != "namespace":
            return False
        i += 1
        first = True
        while i < n and code[i].kind == "ident":
            if first and code[i].text in ("std", "Catch"):
                return False
            first = False
            i += 1
            if i < n and code[i].text == "::":
                i += 1
        if first or i >= n or code[i].text != "{":
            return False
        depth = 0
        while i < n:
            depth += code[i].text == "{"
            depth -= code[i].text == "}"
            i += 1
            if depth == 0:
                break
        if depth != 0:
            return False
    return True


def precompiled_unit(test_file: str, files: Mapping[str, bytes], facts: PchFacts | None) -> str | None:
    """The header the launcher must check compiles on its own, when the test unit
    `test_file` (staged with `files`) may take Catch2 precompiled; None when it may not."""
    if facts is None or not facts.usable or test_file not in files:
        return None
    text = files[test_file].decode(errors="replace")
    header = test_unit_header(text, files)
    if header is None:
        return None
    if any(t.kind == "ident" and t.text in facts.config_diff for t in tokenize(text, directives=False)):
        return None
    return header if _plain_header(header, files, facts, set()) else None
