"""Filling expected values by execution in a pytest suite (languages/python/fill.py).

- Every value with a literal comes back as one that evaluates equal and of the same type,
  through the recorder's encoding and the harness's bounded reading; NaN and objects of
  the solution's own classes are refused with the reason; a set is written the same way
  whatever order it was met in.
- The placeholders a suite has, which can be filled and why not the others; the recording
  suite compiles; writing back changes the placeholders' characters and nothing else.
- In the Docker sandbox, on real pytest suites over the correct solution: `assert x ==
  FILL`, `assert FILL == x` and `self.assertEqual(x, FILL)` are filled; a placeholder
  reached with different values, never reached, or of a value with no literal is left with
  the reason above its statement; the filled suite passes on the correct solution and
  fails on a wrong one; a suite without placeholders is not run, one that does not parse
  says so."""

from __future__ import annotations

import re

import pytest

from harness.languages.python.fill import NoLiteral, Opaque, literal, read_records
from harness.languages.python.placeholders import read_suite, recording_suite, written_back
from harness.languages.python.proxy.record import _line
from harness.languages.registry import language_for
from harness.testwriting.fill import fill_placeholders
from harness.testwriting.written import with_written_tests

from ...conftest import make_backend
from .tally import REFERENCE, WRONG, write_tally

VALUES = [None, True, False, 0, -7, 2 ** 200, 0.1, -0.0, 1e300, float("inf"), float("-inf"), "", "é\n'\"\\",
          b"", b"\x00\xff'", (), (1,), (1, "a"), [], [[1], {"a": (2,)}], {1: "x", "b": [None]}, set(), {3, 1, 2},
          frozenset(), frozenset({"a", "b"}), range(0, 10, 3), {frozenset({1}): {2.5}}]


def recorded(*values) -> bytes:
    """What the recorder writes for these values, at sites 0, 1, ..."""
    return "".join(_line(site, v) + "\n" for site, v in enumerate(values)).encode()


def test_every_value_with_a_literal_comes_back_as_one_that_evaluates_equal():
    records, forged = read_records(recorded(*VALUES), False, len(VALUES))
    assert forged is None
    for site, value in enumerate(VALUES):
        (got,) = records[site]
        text = literal(got)
        again = eval(text, {})  # the harness's own literal
        assert again == value and type(again) is type(value), (value, text)
        assert repr(again) == repr(value) or isinstance(value, (set, frozenset))  # -0.0 keeps its sign


class Point:
    pass


def test_nan_and_objects_without_a_literal_are_refused_with_the_reason():
    records, _ = read_records(recorded(float("nan"), [1, Point()], {"k": (float("nan"),)}), False, 3)
    reasons = []
    for site in range(3):
        with pytest.raises(NoLiteral) as caught:
            literal(records[site][0])
        reasons.append(str(caught.value))
    assert "NaN" in reasons[0] and "a Point, which has no literal" in reasons[1] and "NaN" in reasons[2]
    assert records[1][0] == [1, Opaque("Point")]


def test_a_set_or_dict_is_one_value_whatever_order_it_was_met_in():
    assert literal({"b", "a", "c"}) == literal({"c", "a", "b"}) == "{'a', 'b', 'c'}"
    assert literal({1: 2, 3: 4}) != literal({3: 4, 1: 2})  # written as met ...
    assert literal({1: 2, 3: 4}, canonical=True) == literal({3: 4, 1: 2}, canonical=True)  # ... equal as values
    assert literal(1, canonical=True) != literal(1.0, canonical=True) != literal(True, canonical=True)


SUITE = '''"""A written suite."""
from __future__ import annotations

import unittest

import pytest

from tally import Tally, add, words


def test_add():
    assert add(2, 3) == FILL
    assert FILL == add(-1, 1)
    assert add(0.5, 0.25) == FILL, "a message"
    assert (add(1, 2)
            == FILL)


def test_words():
    assert words("a b  c") == FILL
    assert {w: len(w) for w in words("aa b")} == FILL
    assert set(words("b a b")) == FILL


class TallyTest(unittest.TestCase):
    def test_total(self):
        self.assertEqual(Tally().count("a").count("b").count("a").total(), FILL)
        self.assertEqual(FILL, "é" * 3)
'''
FILLED = {12: "5", 13: "0", 14: "0.75", 16: "3", 20: "['a', 'b', 'c']", 21: "{'aa': 2, 'b': 1}", 22: "{'a', 'b'}",
          27: "3", 28: "'ééé'"}

UNFILLABLE = '''from tally import Tally, add

import pytest


def test_cannot():
    assert Tally() == FILL
    assert float("nan") == FILL
    if add(1, 1) == 3:
        assert add(1, 1) == FILL
    assert add(FILL, 1) == 2
    assert FILL == FILL


@pytest.mark.parametrize("n", [1, 2])
def test_twice(n):
    assert add(n, n) == FILL


def test_fails_first():
    raise ValueError("boom")
    assert add(1, 1) == FILL
'''


def test_placeholders_are_found_on_the_syntax_tree():
    suite = read_suite(SUITE + "# FILL in a comment\nTEXT = 'FILL'\n")
    assert [p.line for p in suite.placeholders] == sorted(FILLED)
    assert all(p.site is not None and p.why is None for p in suite.placeholders)
    assert suite.placeholders[0].test == "test_add" and suite.text[suite.prelude_at:].startswith("\nimport unittest")
    other = read_suite(UNFILLABLE)
    why = {p.line: p.why or "" for p in other.placeholders}
    assert "one whole side of the ==" in why[11] and "more than one FILL" in why[12]
    assert [p.line for p in other.placeholders if p.why is None] == [7, 8, 10, 17, 22]


def test_the_recording_suite_compiles_and_writing_back_touches_only_the_placeholders():
    suite = read_suite(SUITE)
    recording = recording_suite(suite)
    compile(recording, "tally_test.py", "exec")
    assert "from __future__ import annotations\nfrom _harness_proxy.record import record as __harness_fill__\n" in recording
    assert "assert __harness_fill__(0, (add(2, 3)))" in recording and "__harness_fill__(3, (add(1, 2)))" in recording
    assert "__harness_fill__(7, (Tally().count" in recording
    back = written_back(suite, {i: f"<{i}>" for i in range(len(suite.placeholders))}, {})
    assert "FILL" not in back and re.sub(r"<\d+>", "FILL", back) == SUITE


@pytest.fixture(scope="module")
def session():
    with make_backend("docker").session("python-fill") as session:
        yield session


@pytest.fixture(scope="module")
def task(tmp_path_factory):
    return write_tally(tmp_path_factory.mktemp("fill"))


def run_written(task, session, source: bytes, solution: str):
    written = with_written_tests(task, source)
    return language_for(written).run_tests(written, {"tally.py": solution.encode()}, session)


@pytest.mark.slow
def test_a_pytest_suite_is_filled_with_the_correct_solutions_values(task, session):
    filled = fill_placeholders(task, SUITE.encode(), session)
    r = filled.report
    assert (r.placeholders, r.filled, r.unfilled, r.probe) == (len(FILLED), len(FILLED), [], "ok")
    lines = filled.source.decode().split("\n")
    for line, value in FILLED.items():
        assert value in lines[line - 1] and "FILL" not in lines[line - 1], (line, lines[line - 1])
    assert lines[12] == "    assert 0 == add(-1, 1)" and lines[27] == "        self.assertEqual('ééé', \"é\" * 3)"
    assert filled.source.decode().replace("\n", "").count("FILL") == 0
    # The filled suite holds on the correct solution, and tells a wrong one.
    assert run_written(task, session, filled.source, REFERENCE).passed
    report = run_written(task, session, filled.source, WRONG)
    assert [t.name.rsplit("::", 1)[1] for t in report.failing()] == ["test_words"]


@pytest.mark.slow
def test_placeholders_that_cannot_be_filled_say_why_above_their_statement(task, session):
    filled = fill_placeholders(task, UNFILLABLE.encode(), session)
    r = filled.report
    assert (r.placeholders, r.filled) == (8, 0)
    why = {u.line: u.why for u in r.unfilled}
    assert "a Tally, which has no literal" in why[7] and "NaN" in why[8]
    unreached = "never reached when the suite ran on the correct solution; its test tally_test.py::"
    assert why[10].startswith(unreached + "test_cannot did not pass: NameError")  # what line 11 did
    assert "one whole side of the ==" in why[11] and "more than one FILL" in why[12]
    assert why[17] == "reached 2 times with different values: one placeholder, one value"
    assert why[22].startswith(unreached + "test_fails_first did not pass: ValueError: boom")
    text = filled.source.decode()
    assert f"        # FILL not filled: {why[10]}\n        assert add(1, 1) == FILL\n" in text
    assert "    # FILL not filled: reached 2 times" in text and text.count("FILL not filled") == 8
    # Nothing but the notes was added.
    assert "\n".join(ln for ln in text.split("\n") if "# FILL not filled" not in ln) == UNFILLABLE


@pytest.mark.slow
def test_a_suite_without_placeholders_is_not_run_and_one_that_does_not_parse_says_so(task, session):
    plain = b"from tally import add\n\ndef test_add():\n    assert add(1, 2) == 3\n"
    same = fill_placeholders(task, plain, session)
    assert same.source == plain and same.report.placeholders == 0 and same.report.probe is None
    broken = b"def test_add(:\n    assert add(1, 2) == FILL\n"
    got = fill_placeholders(task, broken, session)
    assert got.source == broken and got.report.probe == "syntax_error"
    assert [(u.line, u.why.split(" (")[0]) for u in got.report.unfilled] == [(2, "the suite does not parse")]
