"""A test case as a simulating judge is shown it: its inputs, never its expected outputs.

A judge that simulates code predicts what the code does on a test's inputs; the harness, not
the judge, compares that with what the test expects. A Catch2 case holds both, so the case
is rewritten for the judge (the probe still runs it as the test file writes it, cases.py):

- each assertion becomes an observation of the value under test, the value the probe
  records for it: REQUIRE(a == b), CHECK(a < b) and the like `OBSERVE(a)`; REQUIRE(x),
  REQUIRE_FALSE(x) and REQUIRE_THAT(x, matcher) `OBSERVE(x)`; REQUIRE_THROWS(e),
  REQUIRE_THROWS_AS(e, T) and REQUIRE_NOTHROW(e) `OBSERVE_THROWS(e)`;
- a helper of the test file whose parameter fed only the expected side of its assertions
  loses that parameter, at its definition and at every call (binary-search-tree's
  `check_node<uint32_t>(tree, 4, true, false)` becomes `check_node<uint32_t>(tree)`);
- a declaration whose name fed only expected sides goes (diamond's `expected{...}`, and
  space-age's `using Catch::Matchers::WithinAbs;`);
- INFO, CAPTURE, WARN and CATCH_REGISTER_ENUM go, comments go, and the case's name and tags and its sections'
  names become numbers ("ability modifier for score 12 is +1" says the answer).

What an input shares with its expected value stays (circular-buffer writes 1 and reads 1
back). Which declarations and parameters go is decided by use: a name that the rewritten
text no longer uses but the test file did."""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..lexer import CPP_KEYWORDS, Token, code_tokens, strip_comments

OBSERVE = "OBSERVE"
OBSERVE_THROWS = "OBSERVE_THROWS"

_VALUE = {"REQUIRE", "CHECK", "REQUIRE_FALSE", "CHECK_FALSE", "CHECK_NOFAIL", "STATIC_REQUIRE", "STATIC_REQUIRE_FALSE"}
_THAT = {"REQUIRE_THAT", "CHECK_THAT"}
_THROWS = {"REQUIRE_THROWS", "CHECK_THROWS", "REQUIRE_THROWS_AS", "CHECK_THROWS_AS", "REQUIRE_THROWS_WITH",
           "CHECK_THROWS_WITH", "REQUIRE_THROWS_MATCHES", "CHECK_THROWS_MATCHES", "REQUIRE_NOTHROW", "CHECK_NOTHROW"}
# Said beside the assertions: messages, and the enumerators a test file registers for
# printing (perfect-numbers' lists every classification).
_SAID = {"INFO", "UNSCOPED_INFO", "CAPTURE", "WARN", "CATCH_REGISTER_ENUM"}
_NAMED = {"SECTION", "DYNAMIC_SECTION", "GIVEN", "WHEN", "THEN", "AND_GIVEN", "AND_WHEN", "AND_THEN"}
_COMPARISONS = ("==", "!=", "<=", ">=")
_OPEN, _CLOSE = {"(": ")", "[": "]", "{": "}"}, {")", "]", "}"}
_NOT_CALLED = CPP_KEYWORDS | _VALUE | _THAT | _THROWS | _SAID | _NAMED | {"TEST_CASE", OBSERVE, OBSERVE_THROWS}


@dataclass(frozen=True)
class ShownCases:
    """What a judge is shown of a task's test file: the file around the cases (prelude) and
    each case, both without expected values."""

    prelude: str
    cases: list[str]


Edit = tuple[int, int, str]


def _apply(text: str, edits: list[Edit]) -> str:
    for start, end, new in sorted(edits, reverse=True):
        text = text[:start] + new + text[end:]
    return text


def _matching(tokens: list[Token], i: int) -> int | None:
    """The index of the token closing the bracket opened at `i`."""
    depth = 0
    for j in range(i, len(tokens)):
        if tokens[j].text in _OPEN:
            depth += 1
        elif tokens[j].text in _CLOSE:
            depth -= 1
            if depth == 0:
                return j
    return None


def _split(tokens: list[Token], start: int, end: int, at: set[str]) -> list[tuple[int, int]]:
    """Token ranges [a, b) of tokens[start:end] between the top-level tokens in `at`."""
    parts, depth, first = [], 0, start
    for j in range(start, end):
        text = tokens[j].text
        if text in _OPEN:
            depth += 1
        elif text in _CLOSE:
            depth -= 1
        elif depth == 0 and text in at:
            parts.append((first, j))
            first = j + 1
    parts.append((first, end))
    return parts


def _span(text: str, tokens: list[Token], a: int, b: int) -> str:
    return text[tokens[a].start:tokens[b - 1].end] if b > a else ""


def _value_under_test(text: str, tokens: list[Token], a: int, b: int) -> str:
    """The left side of a comparison: the value the probe records."""
    depth = 0
    for j in range(a, b):
        tok = tokens[j].text
        depth += tok in _OPEN
        depth -= tok in _CLOSE
        # `<` and `>` compare only when spaced: `std::vector<int>` is a type.
        spaced = tok in ("<", ">") and text[tokens[j].start - 1:tokens[j].start] == " " == text[tokens[j].end:tokens[j].end + 1]
        if depth == 0 and (tok in _COMPARISONS or spaced):
            return _span(text, tokens, a, j)
    return _span(text, tokens, a, b)


def _observations(text: str) -> str:
    """Assertions rewritten as observations of their values under test, what was said
    beside them dropped."""
    tokens = code_tokens(text)
    edits: list[Edit] = []
    i = 0
    while i < len(tokens):
        name = tokens[i].text
        macro = name in _VALUE | _THAT | _THROWS | _SAID
        if not (macro and i + 1 < len(tokens) and tokens[i + 1].text == "("):
            i += 1
            continue
        close = _matching(tokens, i + 1)
        if close is None:
            break
        args = _split(tokens, i + 2, close, {","})
        if name in _SAID:
            end = close + 1 if close + 1 < len(tokens) and tokens[close + 1].text == ";" else close
            edits.append((tokens[i].start, tokens[end].end, ""))
        elif name in _VALUE:
            edits.append((tokens[i].start, tokens[close].end, f"{OBSERVE}({_value_under_test(text, tokens, i + 2, close)})"))
        else:
            first = _span(text, tokens, *args[0])
            edits.append((tokens[i].start, tokens[close].end, f"{OBSERVE_THROWS if name in _THROWS else OBSERVE}({first})"))
        i = close + 1
    return _apply(text, edits)


def _names(text: str) -> dict[str, int]:
    counts: dict[str, int] = {}
    for tok in code_tokens(text):
        if tok.kind == "ident":
            counts[tok.text] = counts.get(tok.text, 0) + 1
    return counts


@dataclass(frozen=True)
class _Helper:
    name: str
    at: int             # where its name stands in its definition
    params: int         # how many it had
    kept: list[int]     # the indexes of those it keeps
    edit: Edit          # its parameter list rewritten


def _param_name(tokens: list[Token], a: int, b: int) -> str | None:
    names = [tokens[j].text for j in range(a, b) if tokens[j].text == "=" or tokens[j].kind == "ident"]
    names = names[:names.index("=")] if "=" in names else names
    return names[-1] if len(names) > 1 else None  # a type alone names no parameter


def _helpers(text: str, used_before: dict[str, int]) -> list[_Helper]:
    """Functions defined in `text` with a named parameter that the test file used and the
    rewritten text no longer uses in the function's body."""
    tokens = code_tokens(text)
    out = []
    for i in range(1, len(tokens) - 1):
        if tokens[i].kind != "ident" or tokens[i].text in _NOT_CALLED or tokens[i + 1].text != "(":
            continue
        close = _matching(tokens, i + 1)
        if close is None or close == i + 2:
            continue
        body = close + 1
        while body < len(tokens) and tokens[body].text in ("const", "noexcept", "override"):
            body += 1
        end = _matching(tokens, body) if body < len(tokens) and tokens[body].text == "{" else None
        if end is None:
            continue
        inside = {tokens[j].text for j in range(body, end)}
        params = _split(tokens, i + 2, close, {","})
        names = [_param_name(tokens, a, b) for a, b in params]
        kept = [k for k, n in enumerate(names) if n is None or n in inside or used_before.get(n, 0) < 2]
        if len(kept) < len(params):
            shown = ", ".join(_span(text, tokens, *params[k]) for k in kept)
            out.append(_Helper(tokens[i].text, tokens[i].start, len(params), kept,
                               (tokens[i + 2].start, tokens[close].start, shown)))
    return out


def _argument_edits(text: str, helpers: list[_Helper]) -> list[Edit]:
    """The helpers' calls in `text` without the arguments of their dropped parameters."""
    tokens = code_tokens(text)
    by_call = {(h.name, h.params): h for h in helpers}
    definitions = {h.at for h in helpers}
    edits: list[Edit] = []
    for i, tok in enumerate(tokens):
        if tok.kind != "ident" or tok.start in definitions:
            continue
        j = i + 1
        if j < len(tokens) and tokens[j].text == "<":  # explicit template arguments: check_node<uint32_t>(...)
            depth = 0
            while j < len(tokens):
                depth += {"<": 1, ">": -1, ">>": -2}.get(tokens[j].text, 0)
                j += 1
                if depth <= 0:
                    break
        close = _matching(tokens, j) if j < len(tokens) and tokens[j].text == "(" else None
        if close is None:
            continue
        args = _split(tokens, j + 1, close, {","}) if close > j + 1 else []
        helper = by_call.get((tok.text, len(args)))
        if helper is not None:
            kept = ", ".join(_span(text, tokens, *args[k]) for k in helper.kept)
            edits.append((tokens[j + 1].start, tokens[close].start, kept))
    return edits


def _cut(text: str, start: int, end: int) -> str:
    """The text without [start, end), and without its line when nothing else was on it."""
    line = text.rfind("\n", 0, start) + 1
    after = text.find("\n", end)
    after = len(text) if after < 0 else after
    if not text[line:start].strip() and not text[end:after].strip():
        start, end = line, min(after + 1, len(text))
    return text[:start] + text[end:]


# What stands before a declared name: a type's last token.
_NOT_TYPE = {"return", "else", "case", "throw", "new", "delete", "goto", "co_return", "co_yield", "sizeof", "typedef",
             "using", "namespace", "struct", "class", "enum", "union", "operator", "template", "typename"}


def _dead_declarations(text: str, used_before: dict[str, int], beside: str = "") -> str:
    """Declarations of names the test file used that nothing but the declaration (in `text`
    and `beside`) uses now."""
    for _ in range(16):
        tokens = code_tokens(text)
        now = _names(text + "\n" + beside)
        for i in range(1, len(tokens) - 1):
            tok, before, after = tokens[i], tokens[i - 1], tokens[i + 1]
            if tok.kind != "ident" or now.get(tok.text) != 1 or used_before.get(tok.text, 0) < 2:
                continue
            start = i
            while start > 0 and tokens[start - 1].text not in (";", "{", "}"):
                start -= 1
            using = tokens[start].text == "using" and after.text == ";"  # using Catch::Matchers::WithinAbs;
            if not using and (after.text not in ("{", "=", ";") or before.text in _NOT_TYPE
                              or not (before.kind == "ident" or before.text in (">", "&", "*", "&&"))):
                continue
            end, depth = i, 0
            while end < len(tokens) and not (depth == 0 and tokens[end].text == ";"):
                depth += (tokens[end].text in _OPEN) - (tokens[end].text in _CLOSE)
                end += 1
            if end == len(tokens):
                continue
            text = _cut(text, tokens[start].start, tokens[end].end)
            break
        else:
            return text
    return text


def _renamed(text: str) -> str:
    """The case's name and tags, and each section's name, as numbers."""
    tokens = code_tokens(text)
    edits: list[Edit] = []
    sections = 0
    for i, tok in enumerate(tokens[:-1]):
        if tok.text not in _NAMED | {"TEST_CASE"} or tokens[i + 1].text != "(":
            continue
        close = _matching(tokens, i + 1)
        if close is None:
            continue
        if tok.text != "TEST_CASE":
            sections += 1
        edits.append((tokens[i + 1].end, tokens[close].start, '"public case"' if tok.text == "TEST_CASE" else f'"{sections}"'))
    return _apply(text, edits)


# A conditional left with nothing in it (its cases and comments gone) says nothing.
_EMPTY_IF = re.compile(r"^[ \t]*#[ \t]*if[^\n]*\n\s*#[ \t]*endif[^\n]*$\n?", re.MULTILINE)


def _tidy(text: str) -> str:
    text = "\n".join(line.rstrip() for line in text.splitlines())
    while _EMPTY_IF.search(text):
        text = _EMPTY_IF.sub("", text)
    return re.sub(r"\n\s*\n(\s*\n)+", "\n\n", text).strip()


def shown_cases(prelude: str, cases: list[str]) -> ShownCases:
    """`cases` (each TEST_CASE's text, TaskCase.source) of a test file whose text around them
    is `prelude` (cases.case_context), as a judge is shown them (see the module's docstring)."""
    used_before = _names(strip_comments("\n".join([prelude, *cases])))
    prelude = _observations(strip_comments(prelude))
    texts = [_observations(strip_comments(case)) for case in cases]
    for _ in range(4):  # a helper that calls a helper loses its parameters a step later
        helpers = _helpers(prelude, used_before)
        if not helpers:
            break
        prelude = _apply(prelude, [h.edit for h in helpers] + _argument_edits(prelude, helpers))
        texts = [_apply(t, _argument_edits(t, helpers)) for t in texts]
    texts = [_tidy(_renamed(_dead_declarations(t, used_before))) for t in texts]
    return ShownCases(_tidy(_dead_declarations(prelude, used_before, "\n".join(texts))), texts)
