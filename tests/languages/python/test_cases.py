"""A Python test file's cases, read by its syntax tree: the same items, named as the same
junit XML names them, as the real pytest collects (module functions, `Test*` classes and
nested ones, `unittest.TestCase` subclasses of any name, inherited tests, `__test__ =
False`, parametrize stacked, on a class, with ids, `pytest.param` and repeated values),
in the file's order; `test_code` as Exercism's Python test runner cuts it and `task_id`
from the nearest `@pytest.mark.task(taskno=N)`."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import xml.etree.ElementTree as ET
from pathlib import Path
from types import SimpleNamespace

from harness.languages.python.cases import case_texts, count_declared, declared_cases

COLLECTED = '''\
import unittest
import pytest
from unittest import TestCase

WORDS = ["a", "b"]
pytestmark = [pytest.mark.task(taskno=9)]


@pytest.mark.task(taskno=1)
def test_top():
    assert True


def testnounderscore():
    assert True


def helper_test():
    assert True


@pytest.mark.parametrize("x", [0, 1])
@pytest.mark.parametrize("y", [2, 3])
def test_stacked(x, y):
    pass


@pytest.mark.parametrize("v", ["a b", "é", "", 1.5, True, None, (1, 2), 1, 1, b"by", -1])
def test_values(v):
    pass


@pytest.mark.parametrize(("a", "b"), [(1, 2), pytest.param(3, 4, id="given",
                                                            marks=pytest.mark.task(taskno=4))])
def test_pairs(a, b):
    pass


@pytest.mark.parametrize("a,b", [(1, 2)], ids=["named"])
def test_ids(a, b):
    pass


@pytest.mark.parametrize("w", WORDS)
def test_module_list(w):
    pass


@pytest.mark.parametrize("e", [])
def test_empty(e):
    pass


class TestPlain:
    def test_m(self):
        pass

    def not_a_test(self):
        pass

    class TestInner:
        def test_deep(self):
            pass


@pytest.mark.task(taskno=2)
class TestChild(TestPlain):
    def test_own(self):
        pass

    @pytest.mark.task(taskno=3)
    def test_marked(self):
        pass


@pytest.mark.parametrize("k", [1, 2])
class TestOnClass:
    @pytest.mark.parametrize("j", ["x"])
    def test_both(self, k, j):
        pass


class TestOff:
    __test__ = False

    def test_never(self):
        pass


class TestWithInit:
    def __init__(self):
        pass

    def test_never(self):
        pass


class Zed(unittest.TestCase):
    def test_b(self):
        pass

    def test_a(self):
        pass


class Other(TestCase):
    def test_c(self):
        pass


class Deeper(Zed):
    def test_d(self):
        pass


def test_twice():
    pass


def test_twice():
    pass
'''


def _junit(tmp_path: Path, name: str, source: str) -> list[tuple[str, str]]:
    (tmp_path / name).write_text(source)
    subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly",
                    "--junitxml=junit.xml", name], cwd=tmp_path, capture_output=True, check=False)
    return [(t.get("classname", ""), t.get("name", "")) for t in ET.parse(tmp_path / "junit.xml").iter("testcase")]


def test_the_cases_are_what_pytest_collects_named_as_its_junit_xml(tmp_path):
    got = _junit(tmp_path, "things_test.py", COLLECTED)
    ours = declared_cases(COLLECTED, "things_test.py")
    assert sorted((c.classname, c.name) for c in ours) == sorted(got)
    assert len(ours) == len(got) == 38
    names = [c.node for c in ours]
    # a parametrized function is one case per set, ids as pytest makes them
    assert names[2:6] == ["test_stacked[2-0]", "test_stacked[2-1]", "test_stacked[3-0]", "test_stacked[3-1]"]
    assert "test_values[\\xe9]" in names and "test_values[v6]" in names and "test_values[1_1]" in names
    assert "TestOnClass::test_both[x-1]" in names and "test_empty[NOTSET]" in names
    # the file's order, not unittest's alphabetical one
    assert names.index("Zed::test_b") < names.index("Zed::test_a")


def test_a_task_is_the_nearest_marks(tmp_path):
    tasks = {c.node: c.task_id for c in declared_cases(COLLECTED, "things_test.py")}
    assert tasks["test_top"] == 1 and tasks["testnounderscore"] == 9  # the module's pytestmark
    assert tasks["test_pairs[given]"] == 4 and tasks["test_pairs[1-2]"] == 9
    assert tasks["TestChild::test_own"] == 2 and tasks["TestChild::test_marked"] == 3
    assert tasks["TestChild::test_m"] == 2  # inherited, under the subclass's mark
    two = "import pytest\n\n@pytest.mark.task(taskno=1)\n@pytest.mark.task(taskno=2)\ndef test_x():\n    pass\n"
    assert [c.task_id for c in declared_cases(two, "t_test.py")] == [None]


def test_arguments_that_are_not_literals_count_once():
    source = "import pytest\n\n@pytest.mark.parametrize('x', make())\ndef test_x(x):\n    pass\n"
    assert [c.name for c in declared_cases(source, "t_test.py")] == ["test_x"]


def test_test_code_is_cut_as_exercisms_python_runner_cuts_it():
    source = textwrap.dedent('''\
    import unittest


    class ThingsTest(unittest.TestCase):
        def test_loop(self):
            """Docstring."""
            for n in [1, 2]:
                with self.subTest(n=n):
                    self.assertEqual(n, n)

        def test_long_last(self):
            x = 1
            self.assertEqual(
                x,
                1,
            )
    def test_last_in_file():
        assert True''')
    cases = {c.name: c.test_code for c in declared_cases(source, "things_test.py")}
    assert cases["test_loop"] == ('"""Docstring."""\nfor n in [1, 2]:\n    with self.subTest(n=n):\n'
                                  '        self.assertEqual(n, n)')
    assert cases["test_long_last"] == "x = 1\nself.assertEqual(\n    x,"  # the runner's cut, after the second line
    assert cases["test_last_in_file"] == "assert True"


def test_titles_are_exercisms():
    source = ("import pytest, unittest\n\nclass WordCountTest(unittest.TestCase):\n"
              "    @pytest.mark.task(taskno=1)\n    def test_one_word(self):\n        pass\n\n"
              "    def test_two_words(self):\n        pass\n\ndef test_free_function():\n    pass\n")
    assert [c.title() for c in declared_cases(source, "word_count_test.py")] == [
        "WordCount > one word~", "WordCount > two words", "test free function"]


def test_a_file_that_does_not_parse_declares_nothing():
    assert declared_cases("def test_x(:\n", "t_test.py") == []


def test_a_task_counts_and_names_its_cases_from_its_python_test_files():
    files = {"a_test.py": "def test_one():\n    assert 1\n", "b_test.py": "class TestB:\n    def test_two(self):\n"
             "        assert 2\n", "a.py": "def test_not_a_test_file():\n    pass\n"}
    task = SimpleNamespace(test_files=("a_test.py", "b_test.py"), read_text=files.__getitem__)
    assert count_declared(task) == 2
    texts = case_texts(task)
    assert [(t.name, t.title, t.test_code) for t in texts] == [
        ("a_test.py::test_one", "test one", "assert 1"), ("b_test.py::TestB::test_two", "TestB.test two", "assert 2")]


def test_a_one_line_test_takes_the_line_after_it_as_the_runner_does():
    source = "def test_a(): assert True\n    \ndef test_b(): assert True\n"
    assert [c.test_code for c in declared_cases(source, "t_test.py")] == ["", ""]  # and it ends
