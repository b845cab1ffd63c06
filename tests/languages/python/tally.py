"""A small Python exercise in Exercism's layout, written here: two functions and a class,
a test file with Exercism's task markers (pytest and unittest styles), a reference that
passes, a stub that fails and a wrong answer that fails one test."""

from __future__ import annotations

import json
from pathlib import Path

from harness.task import Task, load_task

SLUG = "tally"
SOLUTION = "tally.py"
TEST_FILE = "tally_test.py"

STUB = '''def add(a, b):
    pass


def words(text):
    pass


class Tally:
    def count(self, word):
        pass

    def total(self):
        pass
'''

REFERENCE = '''def add(a, b):
    return a + b


def words(text):
    return text.split()


class Tally:
    def __init__(self):
        self.seen = {}

    def count(self, word):
        self.seen[word] = self.seen.get(word, 0) + 1
        return self

    def total(self):
        return sum(self.seen.values())
'''

WRONG = REFERENCE.replace("return text.split()", 'return text.split(" ")')  # keeps the empty words

TESTS = '''import unittest

import pytest

from tally import Tally, add, words


@pytest.mark.task(taskno=1)
def test_add():
    assert add(2, 3) == 5


@pytest.mark.task(taskno=1)
def test_words():
    assert words("a b  c") == ["a", "b", "c"]


class TallyTest(unittest.TestCase):
    @pytest.mark.task(taskno=2)
    def test_total(self):
        self.assertEqual(Tally().count("a").count("b").count("a").total(), 3)
'''

CASES = ("tally_test.py::test_add", "tally_test.py::test_words", "tally_test.py::TallyTest::test_total")


def write_tally(folder: Path, tests: str | None = TESTS) -> Task:
    """The exercise in `folder`/tally; with `tests` None, one whose config names no test file."""
    root = folder / SLUG
    (root / ".meta").mkdir(parents=True)
    (root / SOLUTION).write_text(STUB)
    (root / ".meta" / "example.py").write_text(REFERENCE)
    if tests is not None:
        (root / TEST_FILE).write_text(tests)
    (root / ".meta" / "config.json").write_text(json.dumps({"files": {
        "solution": [SOLUTION], "test": [TEST_FILE] if tests is not None else [], "example": [".meta/example.py"]}}))
    return load_task(root)
