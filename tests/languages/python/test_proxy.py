"""The judge outside the candidate (issue 31): the real pytest runs a real test file that
imports the candidate's module by name, and gets the proxy module instead; the candidate's
module runs in a process of its own.

- An honest module (functions, a class with state, exceptions and their messages, a
  builtin's subclass of its own, nested containers, generators, the test's callables, mocks
  and file objects, a name the test patches in it, equality of its objects, threads) passes
  its tests through the proxy, unittest's style and pytest's; so does one at the edges of
  the bounds (an infinite recursion through the test's callable, arguments, classes and
  exception frames over a bound, its threads calling the test's callable), never forged.
- A hostile module (patching pytest, exiting at import, printing fake results at exit,
  patching builtins, an `__eq__` that is always true, values over every bound, garbage or
  forged frames on the pipe, sleeping, dying mid-call) passes none of the same tests, and
  the test process ends within its time bound; a frame no honest server sends leaves the
  verdict `forged`. The test's objects it is lent it can use, never read privately or change.
- A candidate's failure reads as pytest shows it with the module in its process, byte for
  byte: an exception at import (the test's import line, then the module's), one raised
  two calls deep (each frame's source and arguments), under the image's pytest; forged frames naming the round's
  other files are left out.
- The codec refuses, without raising anything else, what is outside its forms and bounds.

For now these run on the host, in a temporary folder; the sandbox's run is the next step."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import threading
import time
import types
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path

import pytest

from harness.languages.python.proxy import codec, frames, wire
from harness.languages.python.proxy.install import ProxyConfig, install, printed_by_test, read_verdict

MODULE = "subject"

HONEST = '''
import os

VERSION = 3
PID = os.getpid()


class SubjectError(ValueError):
    pass


def answer(question):
    words = question.removeprefix("What is ").removesuffix("?").split()
    left, op, right = int(words[0]), words[1], int(words[2])
    return left + right if op == "plus" else left - right


def parse(text):
    if not text:
        raise KeyError("empty")
    if text == "What is?":
        raise ValueError("syntax error")
    raise SubjectError("unknown operation")


def table():
    return {"ones": [1, 1.0, "1", b"1"], "pairs": ((1, 2), frozenset({3})), "none": None, "big": 2 ** 100,
            "deep": [[[["x"]]]]}


def evens(n):
    for i in range(n):
        if i % 2 == 0:
            yield i


def apply(fn, xs):
    return [fn(x) for x in xs]


def first_line(name):
    with open(name) as file:
        return file.readline()


class Counter:
    def __init__(self):
        self.value = 0

    def bump(self):
        self.value += 1
        return self

    def __len__(self):
        return self.value


class Clock:
    def __init__(self, hour, minute):
        self.minutes = (hour * 60 + minute) % 1440

    def add(self, minutes):
        return Clock(0, self.minutes + minutes)

    def __eq__(self, other):
        return self.minutes == other.minutes

    def __str__(self):
        return "%02d:%02d" % divmod(self.minutes, 60)
'''

# A real suite: it passes on the honest module and on nothing that only pretends.
TESTS = '''
import concurrent.futures
import io
import os
import unittest
from unittest import mock

import pytest

import subject
from subject import Clock, Counter, SubjectError, answer, apply, evens, first_line, parse, table


def test_answer():
    assert answer("What is 1 plus 1?") == 2
    assert answer("What is 5 minus 7?") == -2


def test_custom_exception_is_its_class_and_its_base():
    with pytest.raises(SubjectError, match="unknown operation"):
        parse("What is 1 cubed?")
    with pytest.raises(ValueError):
        parse("What is 1 cubed?")


def test_any_exception():
    with pytest.raises(Exception):
        parse("")


def test_nested_containers():
    assert table() == {"ones": [1, 1.0, "1", b"1"], "pairs": ((1, 2), frozenset({3})), "none": None,
                       "big": 2 ** 100, "deep": [[[["x"]]]]}


def test_generator():
    assert list(evens(5)) == [0, 2, 4]
    assert [x for x in evens(3)] == [0, 2]


def test_callable_of_the_test():
    assert apply(lambda x: x * 10, [1, 2]) == [10, 20]


@mock.patch("subject.open", create=True, side_effect=lambda name: io.StringIO(name + "\\n"))
def test_a_patched_name_and_an_object_of_the_test(open_):
    assert first_line("iliad") == "iliad\\n"
    open_.assert_called_once_with("iliad")


def test_object_with_state():
    counter = Counter()
    assert counter.bump().bump() is counter
    assert counter.value == 2
    assert len(counter) == 2
    assert isinstance(counter, Counter)


def test_objects_compare_by_their_rule():
    assert Clock(8, 0).add(60) == Clock(9, 0)
    assert Clock(8, 0) != Clock(9, 0)
    assert str(Clock(8, 5)) == "08:05"


def test_threads_take_turns():
    with concurrent.futures.ThreadPoolExecutor(4) as pool:
        assert list(pool.map(lambda n: answer(f"What is {n} plus 1?"), range(40))) == list(range(1, 41))


def test_module_attribute_and_its_own_process():
    assert subject.VERSION == 3
    assert subject.PID != os.getpid()


class SubjectTest(unittest.TestCase):
    def test_message(self):
        with self.assertRaises(ValueError) as err:
            parse("What is?")
        self.assertEqual(err.exception.args[0], "syntax error")
'''
CASES = 12

# The interface, answering nothing right: what each hostile module adds to it decides what
# its functions return (RESULT) or do first (ACT).
PRETENDS = '''
RESULT = globals().get("RESULT")
ACT = globals().get("ACT", lambda: None)


class SubjectError(ValueError):
    pass


def answer(question):
    ACT()
    return RESULT


parse = table = evens = first_line = answer


def apply(fn, xs):
    ACT()
    return RESULT


class Counter:
    def bump(self):
        ACT()
        return RESULT


class Clock:
    def __init__(self, hour, minute):
        ACT()

    def add(self, minutes):
        return RESULT
'''

WRITE_TO_PIPE = '''
import os, sys

def write(data):
    os.write(int(sys.argv[-1]), data)
'''

HOSTILE = {
    "replaces pytest and its reports": '''
import sys, types
import _pytest.reports, _pytest.runner
fake = types.ModuleType("pytest")
fake.raises = lambda *a, **k: None
sys.modules["pytest"] = fake
_pytest.reports.TestReport.passed = property(lambda self: True)
_pytest.runner.pytest_runtest_makereport = lambda item, call: None
''',
    "exits at import": "import os\nos._exit(0)\n",
    "prints fake results at exit": '''
import atexit, sys
atexit.register(lambda: print("==== 12 passed in 0.01s ===="))
atexit.register(lambda: sys.stderr.write("12 passed\\n"))
sys.exit(0)
''',
    "patches builtins.__import__": '''
import builtins
builtins.__import__ = lambda *args, **kwargs: builtins
builtins.isinstance = lambda *args: True
builtins.len = lambda *args: 2
''',
    "an __eq__ always true": '''
class Anything:
    def __eq__(self, other):
        return True
    def __ne__(self, other):
        return False
    __hash__ = object.__hash__
    def __iter__(self):
        return iter([0, 2, 4])
RESULT = Anything()
''',
    "a value nested 100000 deep": '''
RESULT = []
for _ in range(100_000):
    RESULT = [RESULT]
''',
    "a 10**6-digit int": "RESULT = 1 << 3_321_929\n",
    "a 100 MB string": 'RESULT = "x" * 100_000_000\n',
    "raises KeyboardInterrupt": '''
def ACT():
    raise KeyboardInterrupt
''',
    "dies mid-call": '''
import os
ACT = lambda: os._exit(0)
''',
}

SLOW = {"a 100 MB string"}  # iterating it remotely takes the session's whole time bound

# Hostile modules that write frames of their own to the test process: what no honest
# server sends, so each leaves the verdict forged.
FORGING = {
    "garbage on the pipe": 'ACT = lambda: write(b"garbage\\n")',
    "a frame nested 100000 deep": 'ACT = lambda: write(b"[" * 100_000 + b"\\n")',
    "a reply holding a 10**6-digit int": '''
server = sys.modules["_harness_proxy.server"].Server
ACT = lambda: setattr(server, "encode", lambda self, value: ["i", "9" * 1_000_000])
''',
    "a frame of 100 MB": 'ACT = lambda: write(b"x" * 100_000_000)',
    "a reply out of order": '''ACT = lambda: write(b'["r",99,null]\\n')''',
    "a plain value for an iterator": '''
sys.modules["_harness_proxy.ops"].OPS["iter"] = lambda a: "yes"
RESULT = object()
''',
    "a call back of a callable never sent": '''ACT = lambda: write(b'["q",1,"call",["t",[["c",99],["t",[]],["d",[]]]]]\\n')''',
    # within the recursion limit the proxy raises while it reads a frame, over the codec's depth
    "a reply nested 1200 deep": '''
sys.setrecursionlimit(10_000)


def deep(value):
    item = ["i", "1"]
    for _ in range(600):
        item = ["l", [item]]
    return item


ACT = lambda: setattr(sys.modules["_harness_proxy.server"].Server, "encode", lambda self, value: deep(value))
''',
    "a builtin that is not an exception": '''
sys.modules["_harness_proxy.server"].Server.exception = lambda self, exc: ["E", ["x", "open"], ["t", []], ""]
def ACT():
    raise ValueError
''',
}


@dataclass
class Outcome:
    returncode: int
    passed: int
    cases: int
    transcript: str
    verdict: str | None
    seconds: float


def run_suite(root: Path, candidate: str, tests: str = TESTS, python: str = sys.executable, **config) -> Outcome:
    """The real pytest over a test file in a folder of its own, the proxy module first on
    its path and the candidate's module in a folder only the server reads."""
    candidate_dir, tests_dir = root / "candidate", root / "tests"
    candidate_dir.mkdir()
    tests_dir.mkdir()
    (candidate_dir / f"{MODULE}.py").write_text(candidate)
    (tests_dir / f"{MODULE}_test.py").write_text(tests)
    verdict, junit = root / "verdict", root / "junit.xml"
    proxy = install(root / "proxy", [ProxyConfig(module=MODULE, candidate_dir=str(candidate_dir),
                                                 verdict_path=str(verdict), **config)])
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "PYTEST"))}
    env.update(PYTHONPATH=str(proxy), PYTEST_DISABLE_PLUGIN_AUTOLOAD="1")
    started = time.monotonic()
    done = subprocess.run([python, "-m", "pytest", "-q", "-p", "no:cacheprovider", f"--junitxml={junit}",
                           f"{MODULE}_test.py"], cwd=tests_dir, env=env, capture_output=True, text=True, timeout=120)
    seconds = time.monotonic() - started
    cases = ET.parse(junit).getroot().iter("testcase") if junit.exists() else []
    outcomes = [not any(child.tag in ("failure", "error", "skipped") for child in case) for case in cases]
    return Outcome(done.returncode, sum(outcomes), len(outcomes), done.stdout + done.stderr, read_verdict(verdict),
                   seconds)


def test_an_honest_module_passes_its_tests_through_the_proxy(tmp_path):
    outcome = run_suite(tmp_path, HONEST)
    assert (outcome.returncode, outcome.passed, outcome.cases) == (0, CASES, CASES), outcome.transcript
    assert outcome.verdict is None


GAME = '''
class Game:
    def __init__(self):
        self.rolls = []

    def roll(self, pins):
        self.rolls.append(pins)
        return self

    def score(self):
        return sum(self.rolls)

    def swap(self):
        self.roll = lambda pins: self.rolls.append(-pins)

    @staticmethod
    def perfect():
        return 300
'''

# How many requests each way of reading a method costs, and that each reads as it would in
# one process: a method called where it is read is one request (the attribute read and
# called in the candidate's process); one read as a value, or by getattr, is a bound method
# of the candidate's process, then a call.
GAME_TESTS = '''
import pytest

from _harness_proxy.proxies import ref
from subject import Game


def requests(obj):
    return ref(obj)[0].seq


def test_a_method_called_where_it_is_read_is_one_request():
    game = Game()
    before = requests(game)
    game.roll(3).roll(4)
    assert requests(game) - before == 2
    assert Game.perfect() == 300


def test_a_method_read_as_a_value_is_the_candidates_bound_method():
    game = Game()
    roll = game.roll
    before = requests(game)
    roll(2)
    getattr(game, "roll")(5)
    assert requests(game) - before == 3
    assert game.score() == 7
    assert callable(roll) and roll == game.roll and roll != Game().roll


def test_the_attribute_is_what_it_is_when_called():
    game = Game()
    game.roll(10)
    game.swap()
    game.roll(4)
    assert game.score() == 6


def test_a_missing_method_and_a_value_called():
    game = Game()
    with pytest.raises(AttributeError, match="rol"):
        game.rol(1)
    with pytest.raises(TypeError, match="not callable"):
        game.rolls(1)
'''


def test_a_method_called_where_it_is_read_costs_one_request_and_reads_as_in_one_process(tmp_path):
    outcome = run_suite(tmp_path, GAME, GAME_TESTS)
    assert (outcome.returncode, outcome.passed, outcome.cases) == (0, 4, 4), outcome.transcript
    assert outcome.verdict is None


def test_the_candidates_print_goes_to_its_log_not_the_transcript(tmp_path):
    log = tmp_path / "candidate.log"
    outcome = run_suite(tmp_path, HONEST + 'print("from the candidate")\n', log_path=str(log))
    assert outcome.passed == CASES, outcome.transcript
    assert "from the candidate" not in outcome.transcript
    assert log.read_text() == "from the candidate\n"


def test_what_the_candidate_prints_in_a_test_is_kept_under_that_test_and_never_in_the_transcript(tmp_path):
    # results.json's per-test output (exercism_results.py): filed by the test process, which
    # the candidate's process only sends it to (issue 31).
    printed = tmp_path / "printed"
    chatty = HONEST.replace("    words = question", "    print('asked', question)\n    words = question") \
        + 'print("at import")\n'
    outcome = run_suite(tmp_path, chatty, printed_path=str(printed))
    assert outcome.passed == CASES, outcome.transcript
    assert "asked" not in outcome.transcript
    kept = printed_by_test(printed.read_bytes())
    assert kept["subject_test.py::test_answer"] == "asked What is 1 plus 1?\nasked What is 5 minus 7?\n", kept
    assert kept["subject_test.py::test_threads_take_turns"].count("asked") == 40
    assert not any("at import" in text for text in kept.values())  # printed during collection: no test's


def _fails_everything(outcome: Outcome) -> None:
    assert outcome.returncode != 0, outcome.transcript
    assert outcome.passed == 0, outcome.transcript
    assert f"{CASES} passed" not in outcome.transcript


@pytest.mark.parametrize("name", [pytest.param(name, marks=[pytest.mark.slow] if name in SLOW else []) for name in HOSTILE])
def test_a_hostile_module_passes_none_of_the_tests(tmp_path, name):
    outcome = run_suite(tmp_path, HOSTILE[name] + PRETENDS, call_timeout_s=5, total_timeout_s=10)
    _fails_everything(outcome)
    assert outcome.verdict is None  # honest frames all: the module is merely wrong
    assert outcome.seconds < 60


@pytest.mark.parametrize("name", list(FORGING))
def test_a_module_that_forges_frames_is_forged(tmp_path, name):
    outcome = run_suite(tmp_path, WRITE_TO_PIPE + FORGING[name] + PRETENDS, call_timeout_s=5, total_timeout_s=10)
    _fails_everything(outcome)
    assert outcome.verdict, outcome.transcript
    assert outcome.seconds < 60


# Honest modules at the edges of what crosses, each with its tests: every one was forged, or
# lost its process, before the proxy learnt to send it within the bounds it reads.
AT_THE_EDGES = {
    # the candidate's RecursionError comes while it waits for the test process: the request
    # that could not be made took a number, and the next one came out of order
    "recurses for ever through the test's callable": ('''
def fold(fn, acc):
    return fold(fn, fn(acc))


def answer():
    return 42
''', '''
import pytest
from subject import answer, fold


def test_recursion():
    with pytest.raises(RecursionError):
        fold(lambda x: x, 0)
    assert answer() == 42
'''),
    # the test process's RecursionError came as it parsed a frame, and read as one no JSON holds
    "recurses for ever back and forth with the test's function": ('''
def call(fn, n):
    return fn(n)


def answer():
    return 42
''', '''
import pytest
from subject import answer, call


def back(n):
    return call(back, n + 1)


def test_recursion():
    with pytest.raises(RecursionError):
        call(back, 0)
    assert answer() == 42
'''),
    "calls the test's callable with arguments over a frame's bound": ('''
def apply(fn):
    return fn("\\U0001F600" * 400_000, text="\\U0001F600" * 400_000)  # 4.8 MB of JSON each
''', '''
from subject import apply


def test_apply():
    assert apply(lambda first, text: len(first) + len(text)) == 800_000
'''),
    "classes deeper and wider than the bound": ('''
class C0:
    def where(self):
        return "C0"


class E0(LookupError):
    pass


for i in range(1, 20):
    globals()[f"C{i}"] = type(f"C{i}", (globals()[f"C{i - 1}"],), {})
    globals()[f"E{i}"] = type(f"E{i}", (globals()[f"E{i - 1}"],), {})
Wide = type("Wide", tuple(type(f"B{i}", (), {}) for i in range(20)), {})


def deep():
    return C19()


def wide():
    return Wide()


def fail():
    raise E19("deep")
''', '''
import pytest
from subject import C19, Wide, deep, fail, wide


def test_classes():
    assert deep().where() == "C0"
    assert isinstance(deep(), C19) and isinstance(wide(), Wide)
    with pytest.raises(LookupError, match="deep"):
        fail()
'''),
    "calls the test's callable from threads": ('''
from concurrent.futures import ThreadPoolExecutor


def pmap(fn, xs):
    with ThreadPoolExecutor(8) as pool:
        return list(pool.map(fn, xs))
''', '''
from subject import pmap


def test_pmap():
    for _ in range(10):
        assert pmap(lambda x: x * 2, list(range(100))) == list(range(0, 200, 2))
'''),
    # the server named it as a builtin, which the test process's builtins do not hold
    "puts an exception of its own into builtins": ('''
import builtins


class AppError(LookupError):
    pass


builtins.AppError = AppError


def fail():
    raise AppError("no such thing")
''', '''
import pytest
from subject import AppError, fail


def test_fail():
    with pytest.raises(AppError, match="no such thing"):
        fail()
'''),
    "raises through frames whose arguments escape to more than a frame holds": (f'''
def down(n, {", ".join(f"a{i}" for i in range(15))}):
    if n == 0:
        raise ValueError("bottom")
    return down(n - 1, {", ".join(f"a{i}" for i in range(15))})
''', '''
import pytest
from subject import down


def test_down():
    with pytest.raises(ValueError, match="bottom"):
        down(70, *["\\U0001F600" * 1000] * 15)  # 16 arguments of up to 12 KB of JSON each, 64 frames
'''),
}


@pytest.mark.parametrize("name", list(AT_THE_EDGES))
def test_an_honest_module_at_the_edges_of_the_bounds_passes(tmp_path, name):
    module, tests = AT_THE_EDGES[name]
    outcome = run_suite(tmp_path, module, tests)
    assert (outcome.passed, outcome.cases, outcome.verdict) == (1, 1, None), outcome.transcript


@pytest.mark.slow
def test_a_sleeping_module_times_out_call_by_call(tmp_path):
    outcome = run_suite(tmp_path, "import time\nACT = lambda: time.sleep(1000)\n" + PRETENDS, call_timeout_s=1)
    _fails_everything(outcome)
    assert "CallTimeout" in outcome.transcript
    assert outcome.seconds < 30  # the first call's second, then every later call fails at once


@pytest.mark.slow
def test_a_child_holding_the_pipe_after_its_parent_died_costs_one_call_bound(tmp_path):
    dies = "import os, time\ndef ACT():\n    if os.fork() == 0:\n        time.sleep(1000)\n    os._exit(0)\n"
    outcome = run_suite(tmp_path, dies + PRETENDS, call_timeout_s=3)
    _fails_everything(outcome)
    assert "CallTimeout" in outcome.transcript
    assert outcome.seconds < 30


def test_the_candidate_uses_the_tests_objects_but_reads_nothing_private_and_changes_nothing(tmp_path):
    reaches = '''
def probe(fn):
    found = []
    for name in ("__globals__", "__code__", "_private"):
        try:
            found.append(fn._server.ask("get", fn, name))
        except AttributeError:
            pass
    return found, fn(2)


def change(fn):
    fn._server.ask("set", fn, "public", 2)
'''
    tests = '''
from subject import change, probe


def lent(x):
    return x + 1


lent._private = lent.public = 1


def test_probe_finds_nothing():
    assert probe(lent) == ([], 3)


def test_change_is_forged():
    change(lent)
    assert lent.public == 1
'''
    outcome = run_suite(tmp_path, reaches, tests)
    assert (outcome.passed, outcome.cases) == (1, 2), outcome.transcript
    assert outcome.verdict == "a message out of order or not of the protocol"


def test_a_module_that_cannot_import_fails_collection(tmp_path):
    outcome = run_suite(tmp_path, "def broken(:\n")
    assert outcome.returncode != 0 and outcome.passed == 0
    assert "SyntaxError" in outcome.transcript


# -- the candidate's failure, as in one process ---------------------------------------------

FAILING = {
    "at import": "def answer(q):\n    return 5\n\nharness = undeclared_name\n",
    "two calls deep": ("def helper(x, *rest, k=3):\n    y = x * 2\n    raise KeyError(x)\n\n\n"
                       "def answer(question):\n    return helper(question, 1, 2)\n"),
    # its frame's argument is `.0`, the iterator, which no source can name
    "in a generator expression": "def answer(question):\n    return sum(int(word) for word in question.split())\n",
}
FAILING_TESTS = f'''import unittest
from {MODULE} import answer


class T(unittest.TestCase):
    def test_answer(self):
        self.assertEqual(answer("What is 5?"), 5)
'''


# The sandbox image's pytest (Debian's python3-pytest 7.2, as Aider's benchmark image has
# pytest 7): the frames are rebuilt as it shows them. pytest 8 and later also print an
# expression's columns under its line, and the arguments of a frame without the quirk of
# 7's Code.getargs, which rebuilt frames do not carry.
IMAGE_PYTHON = "/usr/bin/python3"


def _image_pytest() -> bool:
    done = subprocess.run([IMAGE_PYTHON, "-c", "import pytest; print(pytest.__version__)"], capture_output=True,
                          text=True) if os.path.exists(IMAGE_PYTHON) else None
    return done is not None and done.returncode == 0 and done.stdout.startswith("7.")


def _one_process(root: Path, candidate: str) -> str:
    """pytest's output with the module beside its tests, as Aider's benchmark runs it."""
    root.mkdir()
    (root / f"{MODULE}.py").write_text(candidate)
    (root / f"{MODULE}_test.py").write_text(FAILING_TESTS)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "PYTEST"))}
    done = subprocess.run([IMAGE_PYTHON, "-m", "pytest", "-q", "-p", "no:cacheprovider", f"{MODULE}_test.py"],
                          cwd=root, env=env, capture_output=True, text=True, timeout=120)
    return done.stdout + done.stderr


@pytest.mark.skipif(not _image_pytest(), reason=f"no pytest 7 at {IMAGE_PYTHON}, the sandbox image's")
@pytest.mark.parametrize("where", FAILING)
def test_a_failure_reads_as_in_one_process(tmp_path, where):
    (tmp_path / "proxied").mkdir()
    proxied = run_suite(tmp_path / "proxied", FAILING[where], FAILING_TESTS, python=IMAGE_PYTHON)
    plain = _one_process(tmp_path / "plain", FAILING[where])
    # The timings, the line about the report file the run here asks for (testrun.py drops both),
    # and the addresses in reprs.
    noise = re.compile(r"\bin \d+\.\d+s\b|^-+ generated xml file: .* -+\n|\b0x[0-9a-f]+\b", re.M)
    assert proxied.passed == 0 and "_harness_proxy" not in proxied.transcript
    assert noise.sub("", proxied.transcript) == noise.sub("", plain)


def test_forged_frames_show_no_file_of_the_round_but_the_candidates(tmp_path):
    root = tmp_path / "round"
    (root / "candidate").mkdir(parents=True)
    (root / "candidate" / "m.py").write_text("SECRET_OF_THE_CANDIDATE = 1\n")
    (root / "tests").mkdir()
    (root / "tests" / "m_test.py").write_text("SECRET_OF_THE_TESTS = 1\n")
    forged = [[str(root / "tests" / "m_test.py"), 1, 1, "f", []], [str(root / "candidate" / "m.py"), 1, 1, "g", []],
              [str(root / "candidate" / ".." / "tests" / "m_test.py"), 1, 1, "h", [["x", "1"]]]]
    assert frames.well_formed(forged)
    tb = frames.traceback_of(forged, str(root / "candidate"))
    shown = []
    while tb is not None:
        shown.append((tb.tb_frame.f_code.co_filename, tb.tb_frame.f_code.co_name))
        tb = tb.tb_next
    assert shown == [("m.py", "g")]
    assert not frames.well_formed([["m.py", 1, 1, "f", [["x", "1"], ["x", "2"]]]])  # a name twice
    for name in ("class", ".x", ".", "..0", ".0\n", ".1234"):  # neither a name nor a comprehension's argument
        assert not frames.well_formed([["m.py", 1, 1, "f", [[name, "1"]]]]), name
    # The one name a rebuilt frame calls by is no argument of it: an argument of that name calls nothing.
    rebuilt = frames.traceback_of([["m.py", 1, 1, "f", [["__harness_getframe__", "print"], [".0", "x"]]]], str(root))
    assert rebuilt is not None and rebuilt.tb_frame.f_locals["__harness_getframe__"].text == "print"


def _listed_of(call) -> list:
    try:
        call()
    except ValueError as exc:
        return frames.listed(exc.__traceback__, ())
    raise AssertionError("no ValueError")


def test_the_frames_an_honest_server_lists_are_well_formed(tmp_path):
    namespace: dict = {}
    exec(compile(f"def f({'a' * 300}1, {'a' * 300}2):\n    raise ValueError\n", "", "exec"), namespace)
    no_lines = types.FunctionType(namespace["f"].__code__.replace(co_linetable=b""), namespace)
    for call in (lambda: sum(int(word) for word in ["one"]),  # a comprehension's argument, `.0`
                 lambda: namespace["f"](1, 2),  # a file named "", names alike in their first 256 characters
                 lambda: no_lines(1, 2)):  # a code object without line numbers
        listed = _listed_of(call)
        assert frames.well_formed(listed), listed
        assert frames.traceback_of(listed, str(tmp_path / "round" / "candidate")) is not None
    assert [".0"] == [name for name, _ in _listed_of(lambda: sum(int(w) for w in ["one"]))[-1][4]]


# -- the codec -------------------------------------------------------------------------


def _decode(frame: bytes):
    def refuse(tag, item):
        raise codec.Malformed(f"no references here ({tag})")

    return codec.Decoder(refuse).decode(codec.parse(frame))


def test_plain_values_cross_as_themselves():
    value = {"a": [1, -2.5, float("inf"), "s", b"\x00\xff", None, True], (1, "t"): frozenset({2}), "set": {3},
             "big": -(2 ** 10_000), "range": range(-3, 10 ** 30, 7)}
    assert _decode(codec.dump(codec.Encoder(lambda v: pytest.fail(f"sent {v!r} as a reference")).encode(value))) == value


def _nested(depth: int) -> list:
    value: list = []
    for _ in range(depth):
        value = [value]
    return value


def test_what_the_encoder_sends_the_decoder_reads():
    # a dict's entries count twice, key and value, in the decoder's bound
    for value in ({n: n for n in range(codec.MAX_ITEMS // 2 + 1)}, [{n: n for n in range(codec.MAX_ITEMS // 3)}] * 2):
        sent = codec.dump(codec.Encoder(lambda v: ["h", 1, "o", ["x", "Exception"]]).encode(value))
        codec.Decoder(lambda tag, item: None).decode(codec.parse(sent))


@pytest.mark.parametrize("value", [_nested(codec.MAX_DEPTH + 1), "x" * (codec.MAX_STR + 1), 1 << (codec.MAX_INT_BITS + 1),
                                   list(range(codec.MAX_ITEMS + 1)), object(), 1j],
                         ids=["deep", "long str", "long int", "many items", "object", "complex"])
def test_what_is_over_a_bound_or_not_plain_goes_to_the_other_side(value):
    others = []
    codec.Encoder(lambda v: others.append(v) or ["h", 1, "o", ["x", "Exception"]]).encode(value)
    assert len(others) == 1


@pytest.mark.parametrize("frame", [
    b"[" * 100_000 + b"]" * 100_000, b'["i","' + b"9" * 5000 + b'"]', b"1" * 30, b"1.5", b"NaN", b'"bare"',
    b'["s"]', b'["q","x"]', b'["S",[["l",[]]]]', b'["d",[[["l",[]],null]]]', b'["f","1e5000x"]', b'["y","abc"]',
    b'["h",1]', b'["r","0","5","-0"]', b"\xff", b'["l",' * 70 + b"[]" + b"]" * 70,
])
def test_the_decoder_refuses_what_is_not_in_its_forms(frame):
    with pytest.raises(codec.Malformed):
        _decode(frame)


def test_a_peer_that_answered_and_left_before_the_other_end_opened_is_still_heard(tmp_path):
    """A server whose module fails at import answers and exits at once, maybe before the test
    process opens its write end: the test process still reads the answer, then the end,
    never waits out its start bound as if the server had never started."""
    to_peer, from_peer = str(tmp_path / "to-peer"), str(tmp_path / "from-peer")
    os.mkfifo(to_peer)
    os.mkfifo(from_peer)

    def peer() -> None:
        os.close(os.open(to_peer, os.O_RDONLY | os.O_NONBLOCK))  # its read end, open and closed: it is gone
        with open(from_peer, "wb") as out:  # waits for the test process's read end
            out.write(b'["e",0,"it failed"]\n')

    thread = threading.Thread(target=peer)
    thread.start()
    started = time.monotonic()
    read_fd, write_fd = wire.meet(from_peer, to_peer, time.monotonic() + 10)
    thread.join()
    reader = wire.Reader(read_fd)
    assert reader.frame(time.monotonic() + 5) == b'["e",0,"it failed"]'
    with pytest.raises(wire.Closed):
        reader.frame(time.monotonic() + 5)
    assert time.monotonic() - started < 5
    os.close(read_fd)
    os.close(write_fd)
