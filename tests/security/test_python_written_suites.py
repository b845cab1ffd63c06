"""Hostile written pytest suites (test writing on Python, languages/python/written.py), in
the Docker sandbox. A written suite runs in the test process, which can read the round's
files: one that read the solution's text could tell the correct solution from a broken
copy by what it is, not by what it does, and kill every copy for nothing. So a suite passes
the screen before it runs anywhere: each route below is refused, the suite is invalid with
the rule said, and nothing of it ran (no target, no kill rate). Then the degenerate suites
of the study: one with no assertion is not valid; trivially true assertions are valid but
kill nothing and are counted as constant; a copy of the reference is marked."""

from __future__ import annotations

import pytest

from harness.testwriting.score import TargetPool, score_with_report

from ..languages.python.tally import REFERENCE, write_tally

pytestmark = [pytest.mark.slow, pytest.mark.docker]

HONEST = "from tally import Tally, add, words\n\n\ndef test_add():\n    assert add(2, 3) == 5\n"
# Each reads what it may not; the first is the attack itself: a hash of the reference's
# text, which the model is shown, held against the file the round laid out.
REFUSED = {
    "reads the solution's text": ('''import hashlib
import os
from tally import add


def test_is_the_reference():
    text = open(os.path.join(os.path.dirname(__file__), "..", "candidate", "tally.py")).read()
    assert hashlib.sha256(text.encode()).hexdigest() == "0" * 64
''', "import"),
    "reads it through pathlib": ("from pathlib import Path\n\n\ndef test_x():\n    assert Path('../candidate/tally.py').read_text()\n",
                                 "import"),
    "imports os by __import__": ("def test_x():\n    assert __import__('os').listdir('..')\n", "dunder"),
    "reads a function's code": ("from tally import add\n\n\ndef test_x():\n    assert add.__code__.co_code\n", "dunder"),
    "reads an attribute by a computed name": ("from tally import add\n\n\ndef test_x():\n"
                                              "    assert getattr(add, '__co' + 'de__')\n", "reflection"),
    "asks for pytest's request": ("def test_x(request):\n    assert request.config.pluginmanager\n", "fixture"),
    "asks for monkeypatch": ("def test_x(monkeypatch):\n    monkeypatch.setattr('builtins.len', lambda x: 0)\n", "fixture"),
    "calls the harness's recorder": ("from tally import add\n\n\ndef test_x():\n    __harness_fill__(0, True)\n"
                                     "    assert add(1, 1) == 3\n", "dunder"),
    "imports the proxy's client": ("from _harness_proxy import client\n\n\ndef test_x():\n    assert client\n", "import"),
    "ends the run from pytest": ("import pytest\n\n\ndef test_x():\n    pytest.exit('done', returncode=0)\n", "import"),
    "marks itself xfail": ("import pytest\nfrom tally import add\n\n\n@pytest.mark.xfail(strict=True)\ndef test_x():\n"
                           "    assert add(1, 1) == 3\n", "decorator"),
    "reads the process's modules": ("import sys\n\n\ndef test_x():\n    assert sys.modules\n", "import"),
    "runs text as code": ("def test_x():\n    exec('import os')\n", "builtin"),
    # Validity for nothing: tests that pass without being judged (and a real one beside them,
    # so that some assertion runs).
    "redefines how unittest runs a test": ('''import unittest
from tally import add


class T(unittest.TestCase):
    def run(self, result=None):
        return result

    def test_wrong(self):
        self.assertEqual(add(1, 1), 3)


def test_right():
    assert add(1, 1) == 2
''', "runner"),
    "redefines assertEqual, inside an if": ('''import unittest
from tally import add


class T(unittest.TestCase):
    if True:
        def assertEqual(self, a, b):
            pass

    def test_wrong(self):
        self.assertEqual(add(1, 1), 3)
''', "runner"),
    "patches unittest itself": ("import unittest\n\nunittest.TestCase.run = lambda self, result=None: result\n"
                                "\n\ndef test_x():\n    assert True\n", "mutation"),
    "patches a class imported by name": ("from unittest import TestCase\n\n\ndef test_x():\n"
                                         "    TestCase.failureException = KeyError\n", "mutation"),
    "patches pytest.approx": ("import pytest\n\n\ndef test_x():\n    pytest.approx = lambda v: 0\n", "mutation"),
    "loads a pytest plugin": ("pytest_plugins = ['_pytest.skipping']\n\n\ndef test_x():\n    assert True\n", "runner"),
}


@pytest.fixture(scope="module")
def tally(tmp_path_factory):
    return write_tally(tmp_path_factory.mktemp("tally"))


@pytest.fixture(scope="module")
def scored(docker_sandbox, tally):
    """Each suite of the module scored once, in one session: by its name."""
    pool = TargetPool(mutant_cap=8)
    out = {}
    with docker_sandbox.session("written-python") as session:
        def score(name: str, source: str):
            if name not in out:
                out[name] = score_with_report(tally, source.encode(), session, lambda: pool.get(tally, session))
            return out[name]
        yield score


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_a_suite_that_reaches_past_behaviour_never_runs(scored, name):
    source, rule = REFUSED[name]
    suite, report = scored(name, source)
    assert not suite.valid and suite.kill_rate is None and suite.targets == []
    assert suite.refused and any(r.startswith(rule + ":") for r in suite.refused), suite.refused
    assert report.forged and not report.built and "was not run" in (suite.why_invalid or "")


def test_an_honest_suite_beside_them_is_scored(scored):
    suite, _ = scored("honest", HONEST)
    assert suite.valid and suite.refused == [] and suite.kill_rate is not None and suite.killed >= 1


def test_a_suite_with_no_assertion_is_not_valid(scored):
    suite, report = scored("silent", "from tally import add\n\n\ndef test_runs():\n    add(1, 2)\n")
    assert not suite.valid and suite.kill_rate is None
    assert "no assertion ran" in (suite.why_invalid or "") and not report.passed
    assert suite.shape is not None and suite.shape.assertions == 0 and suite.shape.tests == 1


def test_trivially_true_assertions_are_valid_kill_nothing_and_are_counted_constant(scored):
    suite, _ = scored("trivial", "from tally import add\n\n\ndef test_true():\n    assert True\n"
                                 "    assert 1 == 1\n    assert add(2, 2) == add(2, 2)\n")
    assert suite.valid and suite.kill_rate == 0.0
    assert suite.shape is not None and suite.shape.constant == 3 == suite.shape.assertions


def test_a_copy_of_the_reference_is_marked(scored):
    copy = REFERENCE.replace("def add", "def plus").replace("def words", "def split_words").replace("class Tally", "class Copy")
    source = ("from tally import Tally, add, words\n\n" + copy + "\n\ndef test_agrees():\n"
              "    for a, b in [(1, 2), (3, -4)]:\n        assert add(a, b) == plus(a, b)\n"
              "    assert words('a  b') == split_words('a  b')\n"
              "    assert Tally().count('x').total() == Copy().count('x').total()\n")
    suite, _ = scored("embedded", source)
    assert suite.embeds_reference and suite.reference_similarity >= 0.6
