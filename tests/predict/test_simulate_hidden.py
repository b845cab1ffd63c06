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
compared with, so the cases carry none here. Asked several times per case, the judge's
verdicts aggregate by majority or by any.

Python's public tests (tally and shelf, small tasks of the Python tests) are asked as calls in
Python's prediction prompt and read as Python literals: no request holds an expected value of
a test (an assertion's expected side, a value assigned only to be expected, an exception a
block expects), read here from the test's syntax tree by a rule of this test's own."""

from __future__ import annotations

import ast
import re

import pytest

from harness.languages.cpp.probe.cases import case_context, task_cases
from harness.languages.python.probe import prediction
from harness.languages.registry import language_for
from harness.languages.cpp.probe.shown import shown_cases
from harness.models import parse_model
from harness.predict.ask import asker
from harness.predict.judge import Judge, simulate
from harness.predict.prompt import FORMAT, SIMULATION_RULE
from harness.predict.public import PublicCase, public_cases
from harness.suite import find_suite

from tests.languages.python.tally import write_tally
from tests.predict.test_python_items import _shelf
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
            by_name = {c.name: c for c in task_cases(task)}
            cases = [by_name[c.name] for c in public_cases(task)]
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


# --- Python ---------------------------------------------------------------------------------


def _python_expected(source: str) -> list[str]:
    """The expected sides of a test function's assertions as written: the side of `==` or
    `is` (or a unittest assertion's second value) that calls nothing, a name assigned only
    to be expected read as its value, the exception a raises-block names."""
    func = ast.parse(source.strip()).body[0]
    assert isinstance(func, ast.FunctionDef)
    assigned = {n.targets[0].id: n.value for n in ast.walk(func)
                if isinstance(n, ast.Assign) and isinstance(n.targets[0], ast.Name)}
    sides: list[ast.expr] = []
    for n in ast.walk(func):
        if isinstance(n, ast.Compare):
            sides += [s for s in (n.left, *n.comparators) if not any(isinstance(x, ast.Call) for x in ast.walk(s))]
        elif isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute):
            if n.func.attr.startswith("assert") and len(n.args) == 2:
                sides.append(n.args[1])
            elif n.func.attr in ("raises", "assertRaises") and n.args:
                sides.append(n.args[0])
    resolved = [assigned.get(s.id, s) if isinstance(s, ast.Name) else s for s in sides]
    return [ast.unparse(s) for s in resolved]


@pytest.fixture(scope="module")
def python_asked(tmp_path_factory):
    """Per Python task: its public tests, and every request the judge got about them on its
    reference, the judge answering `None` for each observation."""
    folder = tmp_path_factory.mktemp("py")
    out = {}

    def reply(body: dict) -> str:
        user = body["messages"][-1]["content"]
        return "```python\n" + "\n".join(["None"] * max(1, user.count("\n=> "))) + "\n```"

    with ScriptedModel({"judge": Script(by_request=reply)}) as server:
        judge = Judge(asker(parse_model("openai/judge", server.api_base), temperature=0.0, retries=1))
        for task in (write_tally(folder), _shelf(folder)):
            cases = public_cases(task)
            shown = language_for(task).shown_calls(task, cases)
            public = [PublicCase(name=c.name, call=c.call, shown=text, prelude=shown.prelude, expected={"o": []},
                                 form="python") for c, text in zip(cases, shown.calls)]
            code = {name: data.decode() for name, data in task.reference_files().items()}
            simulation = simulate(judge, code, public)
            texts = [_without(m["content"], [prediction.FORMAT, *(c.rstrip() for c in code.values())])
                     for body in server.requests["judge"][-len(cases):] for m in body["messages"]]
            out[task.slug] = (cases, shown, simulation, texts)
    return out


def test_a_python_public_test_is_its_call_without_the_expected_value(python_asked):
    cases, shown, _, _ = python_asked["tally"]
    # `assert add(2, 3) == 5` is asked as `add(2, 3)`, named as pytest names the test.
    assert [(c.name, c.call) for c in cases] == [
        ("tally_test.py::test_add", "add(2, 3)"), ("tally_test.py::test_words", "words('a b  c')"),
        ("tally_test.py::TallyTest::test_total", "Tally().count('a').count('b').count('a').total()")]
    assert shown.calls == [c.call for c in cases] and shown.prelude == "import tally\nfrom tally import add, words, Tally"
    shelf = python_asked["shelf"][0]
    # A test of assertions alone is one sequence of observations; `expected = 2` is left out.
    assert [c.call for c in shelf] == ["=> ratio(7, 2)\n=> ratio(1, 1)",
                                       "shelf = Shelf()\nshelf.put('a')\n=> shelf.put('b')\n=> shelf.take()\n"
                                       "=> shelf.put('')", "shelf = Shelf()\nshelf.put('c')\n=> shelf.take()"]


def test_no_python_request_holds_an_expected_value(python_asked):
    seen = 0
    for slug, (cases, shown, simulation, texts) in python_asked.items():
        assert len(texts) == 2 * len(cases) and all(t for t in texts)
        inputs = "\n".join([*shown.calls, shown.prelude])
        for case in cases:
            for side in _python_expected(case.source):
                token = re.compile(rf"(?<![\w.']){re.escape(side)}(?![\w.'])")
                for text in texts:
                    assert not re.search(r"(?:[=!]=|\bis)\s*" + re.escape(side), text), (slug, case.name, side)
                    assert side in inputs or not token.search(text), (slug, case.name, side, text)
                seen += 1
        # The answers are read as Python literals: `None` is a value, not unreadable.
        assert [c.predicted for c in simulation.cases] == [{"o": [{"v": None}] * c.call.count("=> ") or [{"v": None}]}
                                                           for c in cases]
    assert seen >= 9
