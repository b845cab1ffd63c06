"""A judge simulating code on the public tests never sees what they expect: every request
`judge.simulate` sends, for the public cases of every fixed26 task on its reference code,
is captured by a local OpenAI-compatible server, and none holds an expected side of any
public case of the task (what follows `==` in an assertion, a matcher, an exception type, a
helper's expected arguments, the declaration of a value used only there), its name, or an
assertion at all. The expected sides are read here from the test file with a rule of this
test's own (regexes and a bracket scan), not with the rewrite under test.

An expected value that the input itself holds (circular-buffer writes 1 and reads 1 back,
space-age's age in seconds is its input) is checked only as `== value`: the input may show it.
What the task's code holds (the reference's own strings) is cut from a request before it is
read, with the prompt's fixed text. The requests never depend on the truth a prediction is
compared with, so the cases carry none here: C++ only, as Python tasks have no public cases.
Asked several times per case, the judge's verdicts aggregate by majority or by any."""

from __future__ import annotations

import re

import pytest

from harness.languages.cpp.probe.cases import case_context
from harness.languages.cpp.probe.shown import shown_cases
from harness.models import parse_model
from harness.predict.ask import asker
from harness.predict.judge import Judge, simulate
from harness.predict.prompt import FORMAT, SIMULATION_RULE
from harness.predict.public import PublicCase, public_cases
from harness.suite import find_suite

from tests.scripted_model import Script, ScriptedModel

_ASSERTION = re.compile(r"\b(?:REQUIRE|CHECK)\w*\s*\(")
_STRING = re.compile(r'"(?:[^"\\\n]|\\.)*"')


def _balanced(text: str, open_at: int) -> int:
    """The index of the parenthesis closing the one at `open_at`, skipping string and character literals."""
    depth, i = 0, open_at
    while i < len(text):
        ch = text[i]
        if ch in "\"'":
            i += 1
            while text[i] != ch:
                i += 2 if text[i] == "\\" else 1
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
            if depth == 0:
                return i
        i += 1
    raise AssertionError(f"unbalanced: {text[open_at:open_at + 80]!r}")


def _top_level_split(text: str, at: int, end: int, seps: tuple[str, ...]) -> list[tuple[int, int]]:
    """Spans of text[at:end] between its top-level separators."""
    parts, depth, first, i = [], 0, at, at
    while i < end:
        ch = text[i]
        if ch in "\"'":
            i += 1
            while text[i] != ch:
                i += 2 if text[i] == "\\" else 1
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif depth == 0 and any(text.startswith(s, i) for s in seps):
            sep = next(s for s in seps if text.startswith(s, i))
            parts.append((first, i))
            first = i = i + len(sep)
            continue
        i += 1
    return [*parts, (first, end)]


def _asserting_helpers(context: str) -> set[str]:
    """Functions the test file defines whose bodies assert."""
    out = set()
    for m in re.finditer(r"\b(\w+)\s*\([^;{}]*\)\s*\{", context):
        body_end = _balanced(context, context.index("{", m.end() - 1))
        if _ASSERTION.search(context[m.end():body_end]):
            out.add(m.group(1))
    return out


def expected_sides(body: str, helpers: set[str]) -> list[tuple[int, int]]:
    """Where the case's body says what it expects."""
    spans = []
    for m in re.finditer(r"\b(\w+)\s*(<[^<>()]*>)?\s*\(", body):
        name, close = m.group(1), _balanced(body, m.end() - 1)
        if name in ("REQUIRE", "CHECK", "REQUIRE_FALSE", "CHECK_FALSE"):
            spans += _top_level_split(body, m.end(), close, ("==", "!="))[1:]
        elif name in ("REQUIRE_THAT", "CHECK_THAT", "REQUIRE_THROWS_AS", "CHECK_THROWS_AS") or name in helpers:
            spans += _top_level_split(body, m.end(), close, (",",))[1:]
    # A value declared only to be expected: its declaration is expected too.
    for a, b in list(spans):
        name = body[a:b].strip()
        declared = re.search(rf"\b{name}\s*(?:\{{|=)[^;]*;", body, re.S) if re.fullmatch(r"\w+", name) else None
        if declared and len(re.findall(rf"\b{name}\b", body)) == 2:
            spans.append(declared.span())
    return [(a, b) for a, b in spans if body[a:b].strip()]


def _without(text: str, parts: list[str]) -> str:
    for part in sorted(parts, key=len, reverse=True):
        text = text.replace(part, " ")
    return text


@pytest.fixture(scope="module")
def asked():
    """Per fixed26 task: its public cases, and every request the judge got about them."""
    suite = find_suite("fixed26")
    out = {}
    with ScriptedModel({"judge": Script(then="```\nnull\n```")}) as server:
        judge = Judge(asker(parse_model("openai/judge", server.api_base), temperature=0.0, retries=1))
        for task in suite.tasks:
            cases = public_cases(task)
            shown = shown_cases(case_context(task), [c.source for c in cases])
            public = [PublicCase(name=c.name, call=c.call, shown=text, prelude=shown.prelude, expected={"o": []})
                      for c, text in zip(cases, shown.cases)]
            code = {name: data.decode() for name, data in task.reference_files().items()}
            before = len(server.requests["judge"])
            simulation = simulate(judge, code, public, attempts=1)
            assert len(simulation.cases) == len(cases)
            requests = server.requests["judge"][before:]
            assert len(requests) == len(cases)
            texts = [_without(m["content"], [FORMAT, SIMULATION_RULE, *(c.rstrip() for c in code.values())])
                     for body in requests for m in body["messages"]]
            out[task.slug] = (task, cases, texts)
    return out


def test_every_fixed26_task_is_asked_about_its_public_cases(asked):
    assert len(asked) == 26 and sum(len(cases) for _, cases, _ in asked.values()) >= 68


def test_no_request_holds_an_assertion_or_a_case_name(asked):
    for slug, (task, cases, texts) in asked.items():
        for text in texts:
            assert not _ASSERTION.search(text), (slug, text)
            for case in cases:
                assert f'"{case.name}"' not in text, (slug, case.name)


def _blanked(body: str, spans: list[tuple[int, int]]) -> str:
    for a, b in sorted(spans, reverse=True):
        body = body[:a] + " " * (b - a) + body[b:]
    return body


def test_no_request_holds_an_expected_output(asked):
    seen = 0
    for slug, (task, cases, texts) in asked.items():
        helpers = _asserting_helpers(case_context(task))
        spans = [expected_sides(case.body, helpers) for case in cases]
        # What any request about the task may show: every public case's inputs.
        inputs = "\n".join(_blanked(case.body, s) for case, s in zip(cases, spans))
        for case, case_spans in zip(cases, spans):
            for a, b in case_spans:
                side = case.body[a:b].strip()
                pieces = [side, *_STRING.findall(side)]
                for text in texts:
                    assert not re.search(r"[=!]=\s*" + re.escape(side), text), (slug, case.name, side)
                    leaked = [p for p in pieces if len(p) >= 2 and p not in inputs and p in text]
                    assert not leaked, (slug, case.name, leaked, text)
                seen += 1
    assert seen >= 85  # the rule above finds the expected sides it is meant to


def test_attempts_aggregate_by_majority_or_any():
    # yacht's first public case expects 3. The judge answers 3, 4, unreadable text, 3, over
    # and over; `majority` needs more than half of the attempts to match, `any` one, and an
    # unreadable answer never matches.
    task = find_suite("fixed26").task("yacht")
    case = public_cases(task)[0]
    shown = shown_cases(case_context(task), [case.source])
    public = [PublicCase(name=case.name, call=case.call, shown=shown.cases[0], prelude=shown.prelude,
                         expected={"o": [{"v": 3}]})]
    code = {name: data.decode() for name, data in task.reference_files().items()}
    replies = ["```\n3\n```", "```\n4\n```", "three, I think", "```\n3\n```"]
    with ScriptedModel({"judge": Script(replies=replies * 3)}) as server:
        judge = Judge(asker(parse_model("openai/judge", server.api_base), retries=1))
        got = {(attempts, rule): simulate(judge, code, public, attempts=attempts, rule=rule).cases[0]
               for attempts, rule in [(2, "majority"), (1, "any"), (3, "majority"), (3, "any"), (2, "any")]}
    # In order: (3, 4) one of two; (unreadable); (3, 3, 4) two of three; (unreadable, 3, 3); (4, unreadable).
    assert {key: c.passed for key, c in got.items()} == {
        (2, "majority"): False, (1, "any"): False, (3, "majority"): True, (3, "any"): True, (2, "any"): False}
    three = {"o": [{"v": 3}]}
    assert got[(3, "any")].attempts == [None, three, three] and got[(3, "any")].predicted == three
    assert got[(1, "any")].attempts is None and got[(1, "any")].predicted is None
