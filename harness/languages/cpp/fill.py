"""Filling expected values by execution, C++'s way (`Language.fill_placeholders`; what fill
mode is: testwriting/fill.py). The model writes each expected value as the placeholder
`FILL`, one side of an `==` assertion:

    REQUIRE(perfect_numbers::classify(12) == FILL);

The harness runs the written suite once on the correct solution through the probe
(probe/: the suite itself is the probe's test unit, its assertions recorded by the
Catch2 stand-in, so sections, fixtures, loops and helpers run as the framework runs them),
reads the value the other side had at each placeholder, and writes it in as C++ built
from the value and the other side's type:

    REQUIRE(perfect_numbers::classify(12) == ::harness_fill::number<std::decay_t<decltype(
        perfect_numbers::classify(12))>>(2));

The probe only observes: nothing in the suite's program decides what is filled in. A
placeholder that cannot be filled (never reached, reached with different values, a value
the probe writes only as text, an expression that throws) is left in place with the
reason beside it as a comment, so the suite does not compile and the compiler's message,
shown to the model after the round, says why."""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from typing import Any

from ...sandbox.base import SandboxSession
from ...task import Task
from ..language import FilledSuite, FilledValue, FillReport, Unfilled
from .lexer import Token, tokenize
from .probe import run_probe

PLACEHOLDER = "FILL"
_ASSERTIONS = frozenset({"REQUIRE", "CHECK"})

# Ahead of the suite in the probe's build: the placeholder compares equal to anything (but
# the stand-in's half-decomposed assertion, which compares it itself) and is not recorded,
# so the assertion's record holds the other side's value alone.
_PROBE_PRELUDE = """#include <catch2/catch.hpp>
#include <type_traits>
namespace harness_fill {
struct Placeholder {};
template <class T> struct decomposing : std::false_type {};
template <class T> struct decomposing<::harness_probe::ExprLhs<T>> : std::true_type {};
template <class T, class = std::enable_if_t<!decomposing<T>::value>>
bool operator==(const T&, Placeholder) { return true; }
template <class T>
bool operator==(Placeholder, const T&) { return true; }
}  // namespace harness_fill
#define FILL HARNESS_FILL_PLACEHOLDER
#define HARNESS_FILL_PLACEHOLDER (::harness_fill::Placeholder{})
#line 1
"""
# The assertion's text as the stand-in records it: its arguments macro-expanded.
_EXPANDED = "(::harness_fill::Placeholder{})"

# Ahead of the filled suite in the real build: how a value becomes one of the other side's
# type. A container's elements take the container's element type; anything else is cast.
_FILLED_PRELUDE = """#include <cstddef>
#include <iterator>
#include <limits>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
namespace harness_fill {
template <class T, std::size_t I, class = void>
struct element { using type = std::tuple_element_t<I, T>; };
template <class T, std::size_t I>
struct element<T, I, std::void_t<decltype(std::begin(std::declval<const T&>()))>> {
    using type = std::decay_t<decltype(*std::begin(std::declval<const T&>()))>;
};
template <class T, std::size_t I>
using element_t = typename element<T, I>::type;
template <class T, class V>
T number(V value) { return static_cast<T>(value); }
template <class T>
auto text(const char* data, std::size_t size) {
    if constexpr (std::is_same_v<T, char>) {
        return data[0];
    } else {
        return std::string(data, size);
    }
}
}  // namespace harness_fill
#line 1
"""


@dataclass
class _Site:
    token: Token
    first_line: int   # the assertion's lines: where its record may say it is
    last_line: int


def _line(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


def _sites(text: str, tokens: list[Token]) -> list[_Site | Unfilled]:
    """Each placeholder with the assertion it is in (REQUIRE or CHECK, by the nearest
    enclosing parentheses), or why it is in none."""
    out: list[_Site | Unfilled] = []
    opens: list[int] = []  # indexes of the open parentheses around the current token
    closing: dict[int, int] = {}
    for i, tok in enumerate(tokens):
        if tok.text == "(":
            opens.append(i)
        elif tok.text == ")" and opens:
            closing[opens.pop()] = i
    for i, tok in enumerate(tokens):
        if tok.kind != "ident" or tok.text != PLACEHOLDER:
            continue
        depth, macro = 0, None
        for j in range(i - 1, -1, -1):
            t = tokens[j].text
            if t == ")":
                depth += 1
            elif t == "(":
                if depth == 0:
                    if j > 0 and tokens[j - 1].text in _ASSERTIONS:
                        macro = j
                    break
                depth -= 1
        if macro is None or macro not in closing:
            out.append(Unfilled(line=_line(text, tok.start), why=f"{PLACEHOLDER} is not inside REQUIRE( ) or CHECK( )"))
            continue
        out.append(_Site(tok, _line(text, tokens[macro - 1].start), _line(text, tokens[closing[macro]].start)))
    return out


def _other_side(expression: str) -> str | None:
    """The side of `a == FILL` (or `FILL == a`) that is not the placeholder, from the
    assertion's text; None when the assertion is not one such comparison."""
    tokens = tokenize(expression.replace(_EXPANDED, PLACEHOLDER))
    expression = expression.replace(_EXPANDED, PLACEHOLDER)
    depth, cuts = 0, []
    for i, tok in enumerate(tokens):
        if tok.text in "([{":
            depth += 1
        elif tok.text in ")]}":
            depth -= 1
        elif tok.text == "==" and depth == 0:
            cuts.append(i)
    if len(cuts) != 1:
        return None
    left, right = tokens[:cuts[0]], tokens[cuts[0] + 1:]
    for mine, other in ((right, left), (left, right)):
        if [t.text for t in mine] == [PLACEHOLDER] and other:
            return expression[other[0].start:other[-1].end]
    return None


def _escaped(text: str) -> str:
    # The probe writes bytes as code points below 256; octal escapes have a fixed length.
    out = []
    for ch in text:
        code = ord(ch)
        if ch in '"\\':
            out.append("\\" + ch)
        elif 0x20 <= code < 0x7f:
            out.append(ch)
        else:
            out.append(f"\\{code & 0xff:03o}")
    return "".join(out)


def cpp_value(value: Any, type_text: str) -> str | None:
    """C++ for `value` (as the probe recorded it) in the type `type_text`; None when the
    record does not say enough to write the value back."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return f"::harness_fill::number<{type_text}>({value}{'ll' if abs(value) >= 2 ** 31 else ''})"
    if isinstance(value, float):
        return f"::harness_fill::number<{type_text}>({value!r})"
    if isinstance(value, str):
        data = value.encode("latin-1", errors="replace")
        return f'::harness_fill::text<{type_text}>("{_escaped(value)}", {len(data)})'
    if value is None:
        return f"{type_text}{{}}"
    if isinstance(value, list):
        parts = [cpp_value(v, f"::harness_fill::element_t<{type_text}, {i}>") for i, v in enumerate(value)]
        elements = [p for p in parts if p is not None]
        return None if len(elements) < len(parts) else f"{type_text}{{{', '.join(elements)}}}"
    if isinstance(value, dict) and value.get("float") in ("inf", "-inf"):
        sign = "-" if value["float"] == "-inf" else ""
        return f"::harness_fill::number<{type_text}>({sign}std::numeric_limits<double>::infinity())"
    return None


def _not_writable(value: Any) -> str:
    if isinstance(value, dict) and "text" in value:
        return "the correct solution's value is only known as text (a type with operator<<): write it yourself"
    return f"the correct solution's value {json.dumps(value)[:80]} cannot be written back as C++"


def _fill_one(site: _Site, records: list[dict]) -> tuple[str | None, str | None]:
    """(the C++ that replaces the placeholder, None) or (None, why not)."""
    if not records:
        return None, "never reached when the suite ran on the correct solution"
    if any(r.get("k") == "raised" for r in records):
        thrown = next(r.get("x") for r in records if r.get("k") == "raised")
        return None, f"the expression throws {thrown} on the correct solution: assert that with REQUIRE_THROWS_AS"
    if any(r.get("k") != "cmp" or r.get("op") != "==" or r.get("neg") for r in records):
        return None, f"{PLACEHOLDER} must be one side of an == in REQUIRE( ) or CHECK( )"
    other = _other_side(str(records[0].get("e") or ""))
    if other is None:
        return None, f"{PLACEHOLDER} must be one whole side of a single =="
    if any(("l" in r) == ("r" in r) for r in records):
        return None, "the other side's value could not be recorded"
    values = {json.dumps(r["l"] if "l" in r else r["r"], sort_keys=True) for r in records}
    if len(values) > 1:
        return None, f"reached {len(records)} times with different values: one placeholder, one value"
    value = json.loads(values.pop())
    text = cpp_value(value, f"std::decay_t<decltype({other})>")
    return (text, None) if text is not None else (None, _not_writable(value))


def fill_placeholders(task: Task, test_file: str, source: bytes, session: SandboxSession) -> FilledSuite:
    """`source` with every placeholder that can be filled replaced by the correct
    solution's value, and a report; a suite without placeholders comes back unchanged."""
    start = time.monotonic()
    text = source.decode(errors="replace")
    tokens = [t for t in tokenize(text) if t.kind not in ("comment", "pp")]
    sites = _sites(text, tokens)
    report = FillReport(placeholders=len(sites))
    if not sites:
        return FilledSuite(source, report)
    run = run_probe(task, task.reference_files(), session, test_unit=(test_file, _PROBE_PRELUDE + text))
    report.probe = run.status
    records = [r for stream in run.streams[:1] for case in stream.cases for r in case.records]
    replace: list[tuple[Token, str]] = []
    for site in sites:
        if isinstance(site, Unfilled):
            report.unfilled.append(site)
            continue
        line = _line(text, site.token.start)
        if run.status == "compile_error":
            why = "the suite does not compile with the placeholders in it"
        elif sum(isinstance(s, _Site) and s.first_line <= line <= s.last_line for s in sites) > 1:
            why = f"more than one {PLACEHOLDER} in one assertion"
        else:
            found = [r for r in records if site.first_line <= int(r.get("line", 0)) <= site.last_line]
            filled, reason = _fill_one(site, found)
            if filled is not None:
                replace.append((site.token, filled))
                report.values.append(FilledValue(at=site.token.start, text=filled))
                continue
            assert reason is not None  # _fill_one says why whenever it fills nothing
            why = reason
            if run.status != "ok" and not found:
                why = f"the probe run on the correct solution ended early ({run.reason})"
        report.unfilled.append(Unfilled(line=line, why=why))
        replace.append((site.token, f"{PLACEHOLDER} /* not filled: {why.replace('*/', '* /')} */"))
    report.filled = report.placeholders - len(report.unfilled)
    for tok, new in sorted(replace, key=lambda r: r[0].start, reverse=True):
        text = text[:tok.start] + new + text[tok.end:]
    report.seconds = round(time.monotonic() - start, 3)
    return FilledSuite((_FILLED_PRELUDE + text).encode(), report)
