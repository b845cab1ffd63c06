"""Hostile Python candidates through Python's real test round (issue 31), in Docker and the
local backend: each would pass if its attack worked, and none passes; the bombs end within
their bounds; after each, the reference passes in the same session, so no candidate harms
the next.

- Patching pytest, its reports or builtins at import, exiting at import or in a call
  (sys.exit, os._exit), printing fake results at exit: done to the candidate's own process.
- A conftest.py, a .pth, a sitecustomize.py or a pytest.ini in the workspace: refused as
  tampered, never staged; a test file it rewrites is the task's own again (a .py file that is
  not a solution file).
- Reading the test file, the staged sources, the junit report or the verdict file, writing
  either: a PermissionError, which the candidate's output shows.
- A fork bomb, a memory bomb, an infinite loop, a regular expression that holds the GIL (so
  that its server never sees the test process end): the call times out or the process dies,
  the round fails within its bound, not at the servers' exec's own limit.
- Killing or stopping every process it can see: only its own die; the test process reports.
- Signalling, tracing or reading the builder's warm pytest, or writing its request: refused,
  and the same warm pytest serves the next round; lines that would name another, or say it
  ended, in what the test run prints: read as the test run's output, never as the builder's.
- A daemon that outlives its server, which ends at import, or that ends the shell of its
  servers so that their clean-up never runs: no process of the runner's is left after the round.
- Writing its own frames on the pipe from the server: the run is forged.
- Printing megabytes that spell pytest's lines during every test: its output, cut to its
  bound, never pytest's console.

A task whose tests read the call stack runs in one process (languages/python/inprocess.py),
behind the static screen: every candidate of IN_PROCESS would patch pytest, builtins or
sys.exit, or read the test's frames or globals, by one route of the screen's rules
(importing sys or os, `__builtins__`, `__import__`, a traceback's or a generator's frame,
`().__class__.__base__.__subclasses__()`, `"{0.__globals__}".format(f)`, getattr of a
computed name, an object equal to everything, a test object's counter set, a module file
beside the tests): each is
forged before anything runs, and the exercise's honest reference, which the proxy could
not judge, passes."""

from __future__ import annotations

import time

import pytest

from harness.languages.registry import language_for
from harness.records import Status
from harness.sandbox.base import Role

from ..conftest import make_backend
from ..languages.python import meter
from ..languages.python.tally import REFERENCE, SOLUTION, STUB, write_tally
from .python_attacks import CHEAT, COMMON

pytestmark = [pytest.mark.slow]

LIMIT_S = 15.0  # the round's limit: a call's bound is a third of it


HOSTILE = {
    **COMMON,
    "patches pytest and its reports at import": '''
import sys, types
import _pytest.reports, _pytest.runner
fake = types.ModuleType("pytest")
fake.raises = lambda *a, **k: None
sys.modules["pytest"] = fake
_pytest.reports.TestReport.passed = property(lambda self: True)
_pytest.runner.pytest_runtest_makereport = lambda item, call: None
won = lambda: False
''',
    "patches builtins at import": '''
import builtins
builtins.isinstance = lambda *args: True
builtins.len = lambda *args: 3
builtins.AssertionError = type("AssertionError", (BaseException,), {})
won = lambda: False
''',
    "sys.exit at import": "import sys\nsys.exit(0)\nwon = lambda: True\n",
    "os._exit at import": "import os\nos._exit(0)\nwon = lambda: True\n",
    "sys.exit in a call": "import sys\ndef won():\n    sys.exit(0)\n",
    "os._exit in a call": "import os\ndef won():\n    os._exit(0)\n",
    "prints fake results at exit": '''
import atexit, os, sys
atexit.register(lambda: print("==== 3 passed in 0.01s ===="))
def won():
    sys.exit(0)
''',
    "reads the tests and writes the verdict": '''
import glob, os
ROUND = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # the round's folder, beside its own
# The round's pipes, found as its server holds them (each round's have a fresh name).
PIPES = next(os.path.dirname(p) for p in (os.readlink(f"/proc/self/fd/{n}") for n in os.listdir("/proc/self/fd"))
             if p.endswith("tally.out"))
TRIED = []

def won():
    for path in [f"{ROUND}/tests/tally_test.py", f"{ROUND}/out/junit.xml", f"{ROUND}/out/verdict",
                 *glob.glob("/src/tally/*"), *glob.glob("/tmp/harness-stage-*/tally/*")]:
        try:
            with open(path) as f:
                f.read()
            return True
        except OSError as exc:
            TRIED.append(type(exc).__name__)
    for path in [f"{ROUND}/out/junit.xml", f"{ROUND}/out/verdict", f"{PIPES}/extra", f"{ROUND}/tests/conftest.py",
                 f"{ROUND}/proxy/_harness_proxy/client.py", f"{ROUND}/proxy/tally.py"]:
        try:
            with open(path, "w") as f:
                f.write("<testsuites/>")
            return True
        except OSError as exc:
            TRIED.append(type(exc).__name__)
    print("tried:", *sorted(set(TRIED)))
    return False
''',
    "an infinite loop": "def won():\n    while True:\n        pass\n",
    # The runner's clean-up runs in its servers' exec, beside the test run still reading back
    # its files: a daemon must not outlive it, nor the shell's end skip it.
    "leaves a daemon and ends its server at import": '''
import os
if os.fork() == 0:
    os.setsid()
    os.execv("/bin/sleep", ["sleep", "6001"])
os._exit(0)
won = lambda: True
''',
    "ends the shell of its servers and leaves a daemon": '''
import os, signal
if os.fork() == 0:
    os.setsid()
    os.execv("/bin/sleep", ["sleep", "6001"])
os.kill(os.getppid(), signal.SIGKILL)
won = lambda: False
''',
    # The builder's warm pytest (languages/python/warm.py) forks every later round's test
    # run: signalling, tracing or reading it, or writing its request, would reach them.
    "reaches for the warm pytest": '''
import os, signal
def won():
    reached, seen = [], 0
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                if b"warm_pytest" not in f.read():
                    continue
        except OSError:
            continue
        seen += 1
        for sig in (signal.SIGUSR1, signal.SIGSTOP, signal.SIGKILL):
            try:
                os.kill(int(pid), sig)
                reached.append(sig)
            except OSError:
                pass
        for name in ("mem", "environ", "fd/0"):
            try:
                with open(f"/proc/{pid}/{name}", "rb") as f:
                    f.read(1)
                reached.append(name)
            except OSError:
                pass
    for path in ("/build/.python-warm/request", "/build/.python-warm/reply"):
        try:
            with open(path, "w") as f:
                f.write("/tmp\\n\\n/tmp/x\\n-p\\n")
            reached.append(path)
        except OSError:
            pass
    print("warm pytests seen:", seen, "reached:", reached)
    return bool(reached)
''',
    # The builder's output names the warm pytest it started, or one that ended mid-run: what
    # it reads back of the test run's files (which a candidate writes into) is never read so.
    "forges the warm pytest's lines": '''
LINES = "\\n@@harness-warm-pytest 1\\n@@harness-warm-pytest-lost\\n@@harness-warm-pytest none\\n"
class Lines:
    def __repr__(self):
        return LINES
def won():
    raise ValueError(LINES, Lines())
''',
}
# The candidates of HOSTILE that leave a process, whose command line says 6001.
DAEMONS = ("leaves a daemon and ends its server at import", "ends the shell of its servers and leaves a daemon")

# What a workspace adds beside the solution: each refused as tampered, never staged.
TAMPERING = {
    "conftest.py": b"import pytest\n@pytest.hookimpl(hookwrapper=True)\ndef pytest_runtest_makereport(item, call):\n"
                   b"    outcome = yield\n    outcome.get_result().outcome = 'passed'\n",
    "evil.pth": b"import os; os.environ['PWNED'] = '1'\n",
    "sitecustomize.py": b"import builtins; builtins.AssertionError = Exception\n",
    "pytest.ini": b"[pytest]\naddopts = -p no:python\n",
}

FORGES = '''
import os
# The pipe to the test process, found as its server holds it (each round's pipes have a fresh name).
PIPE = next(p for p in (os.readlink(f"/proc/self/fd/{n}") for n in os.listdir("/proc/self/fd")) if p.endswith("tally.out"))
def won():
    fd = os.open(PIPE, os.O_WRONLY | os.O_NONBLOCK)
    os.write(fd, b'["r",1,["s","yes"]]\\n["garbage"\\n')
    return False
'''


@pytest.fixture(scope="module", params=["docker", "local"])
def session(request):
    with make_backend(request.param).session("python-hostile") as session:
        yield session


@pytest.fixture(scope="module")
def task(tmp_path_factory):
    return write_tally(tmp_path_factory.mktemp("python-hostile"))


def _run(task, session, files: dict[str, bytes]):
    started = time.monotonic()
    report = language_for(task).run_tests(task, files, session, time_limit_s=LIMIT_S, transcript=True)
    return report, time.monotonic() - started


def _next_candidate_passes(task, session) -> None:
    report, _ = _run(task, session, {SOLUTION: REFERENCE.encode()})
    assert report.passed, report.transcript or report.message


@pytest.mark.parametrize("name", list(HOSTILE))
def test_a_hostile_candidate_passes_nothing_and_harms_no_one_after_it(task, session, name):
    warm_before = session.kept.get("pytest")
    report, seconds = _run(task, session, {SOLUTION: (HOSTILE[name] + CHEAT).encode()})
    assert not report.passed, report
    assert not any(t.status is Status.passed for t in report.tests), report.tests
    assert seconds < LIMIT_S + 30
    if name == "reads the tests and writes the verdict":
        assert "tried:" in (report.output or "") and "PermissionError" in (report.output or ""), report.output
        assert "won" not in (report.output or "")
    if name == "kills and stops every process it can":
        assert report.status is Status.failed and len(report.tests) == 3  # the test process lived and reported
    if name == "reaches for the warm pytest":
        assert "reached: []" in (report.output or ""), report.output
        if session.keeps_processes:  # it saw it (and the test run it forked), which is still the session's
            assert "warm pytests seen: 0" not in (report.output or ""), report.output
            assert session.kept["pytest"] == (warm_before or session.kept["pytest"])
    if name == "forges the warm pytest's lines":
        assert report.status is Status.failed, report  # not a run whose warm pytest ended
        if session.keeps_processes:
            assert session.kept["pytest"] == (warm_before or session.kept["pytest"])
    if name in DAEMONS:  # no process of the runner's is left (under bubblewrap it sees its own alone)
        left = session.exec(["sh", "-c", "for p in /proc/[0-9]*; do [ -O $p ] && tr '\\0' ' ' <$p/cmdline; echo; done"],
                            role=Role.runner, timeout_s=30)
        assert b"6001" not in left.output, left.output
    _next_candidate_passes(task, session)


@pytest.mark.parametrize("name", list(TAMPERING))
def test_a_build_file_in_the_workspace_is_refused_as_tampered(task, session, name):
    report, _ = _run(task, session, {SOLUTION: STUB.encode(), name: TAMPERING[name]})
    assert name in report.tampered
    assert not report.passed and report.status is Status.failed


def test_frames_of_its_own_on_the_pipe_make_the_run_forged(task, session):
    report, _ = _run(task, session, {SOLUTION: (FORGES + CHEAT).encode()})
    assert report.forged and not report.passed, report
    assert report.forgery and report.forgery[0].startswith("forged:")
    _next_candidate_passes(task, session)


FLOODS = '''
def won():
    for _ in range(2000):
        print("tally_test.py::test_add PASSED " * 100)
    return False
'''


def test_what_it_prints_stays_its_output_within_bounds_never_the_verdict_or_the_transcript(task, session):
    # Megabytes printed during every test, spelling pytest's own lines: each test's output is
    # cut to its bound, pytest's console (the transcript, the verdict's source) holds none of it.
    from harness.exercism_results import exercism_results
    from harness.languages.python.proxy.client import PRINTED_PER_TEST

    report, seconds = _run(task, session, {SOLUTION: (FLOODS + CHEAT).encode()})
    assert not report.passed and report.status is Status.failed, report
    assert not any(t.status is Status.passed for t in report.tests)
    assert all(len(t.output or "") <= PRINTED_PER_TEST for t in report.tests)
    assert any("PASSED" in (t.output or "") for t in report.tests)
    assert "PASSED" not in (report.transcript or "") and seconds < LIMIT_S + 30
    assert all(len(t.output or "") <= 500 + 100 for t in exercism_results(task, report).tests)
    _next_candidate_passes(task, session)


def test_the_test_file_a_workspace_rewrites_is_the_tasks_own(task, session):
    report, _ = _run(task, session, {SOLUTION: STUB.encode(), "tally_test.py": b"def test_add():\n    pass\n"})
    assert "tally_test.py" in report.tampered
    assert report.status is Status.failed and len(report.tests) == 3


# Answers right only where its attack worked, in the in-process exercise.
IN_PROCESS_CHEAT = meter.REFERENCE.replace("        return data\n", "        return data if won() else None\n")

IN_PROCESS = {
    "imports sys to exit": "import sys\ndef won():\n    sys.exit(0)\n",
    "imports os to exit": "import os\ndef won():\n    os._exit(0)\n",
    "patches pytest from sys.modules": '''
import sys
def won():
    sys.modules["_pytest.reports"].TestReport.passed = property(lambda self: True)
    return True
''',
    "patches __builtins__": "def won():\n    __builtins__['isinstance'] = lambda *a: True\n    return True\n",
    "__import__('os')": "def won():\n    __import__('os')._exit(0)\n",
    "walks frames from an exception's traceback": '''
def won():
    try:
        raise ValueError
    except ValueError as exc:
        frame = exc.__traceback__.tb_frame.f_back
    frame.f_globals["MeterTest"].assertEqual = lambda *a: None
    return True
''',
    "walks frames from a generator": '''
def won():
    gen = (x for x in [1])
    frame = gen.gi_frame.f_back
    frame.f_locals["self"].assertEqual = lambda *a: None
    return True
''',
    "reaches every class through object": '''
def won():
    for cls in ().__class__.__base__.__subclasses__():
        if cls.__name__ == "TestReport":
            cls.passed = property(lambda self: True)
    return True
''',
    "reads globals through a format field": '''
def won():
    return "{0.__globals__}".format(won) != ""
''',
    "getattr with a computed name": '''
def won():
    try:
        raise ValueError
    except ValueError as exc:
        tb = getattr(exc, "__trace" + "back__")
    getattr(getattr(tb, "tb_" + "frame"), "f_" + "back").f_globals["unittest"].TestCase.assertEqual = print
    return True
''',
    "eval of a string": "def won():\n    return eval(\"__import__('os')._exit(0)\")\n",
    "exit at import": "import sys\nsys.exit(0)\nwon = lambda: True\n",
    "reads the test file": "def won():\n    return 'pull' in open('meter_test.py').read()\n",
    "the standard library's own reach": "import random\ndef won():\n    random._os._exit(0)\n",
    "a metaclass": "class Meta(type):\n    pass\nclass Anything(metaclass=Meta):\n    pass\ndef won():\n    return True\n",
    "sets the test helper's counter": '''
class Pull:
    def __init__(self, source):
        source.reads = 2
def won():
    return True
''',
    "an object equal to everything": '''
class Anything:
    def __eq__(self, other):
        return True
def won():
    return True
''',
}


@pytest.fixture(scope="module")
def meter_task(tmp_path_factory):
    return meter.write_meter(tmp_path_factory.mktemp("python-in-process"))


@pytest.mark.parametrize("name", list(IN_PROCESS))
def test_an_in_process_candidate_that_reaches_the_test_process_is_forged(meter_task, session, name):
    report, _ = _run(meter_task, session, {meter.SOLUTION: (IN_PROCESS[name] + IN_PROCESS_CHEAT).encode()})
    assert report.forged and not report.passed, report
    assert report.forgery and report.message and report.message.startswith("forged: "), report
    assert not report.tests  # never run


def test_a_module_file_beside_the_solution_is_forged_in_process(meter_task, session):
    report, _ = _run(meter_task, session, {meter.SOLUTION: meter.REFERENCE.encode(), "errno.py": b"ENOENT = 0\n"})
    assert report.forged and not report.passed and "errno.py" in report.forgery[0], report


def test_thousands_of_refusals_make_a_message_of_the_first_twenty(meter_task, session):
    # A name a hundred thousand characters long, then five thousand refused calls: the model
    # is told the first findings, each cut, and how many more; the record keeps them all.
    many = "import " + "x" * 100_000 + "\n" + meter.REFERENCE + "\ndef f():\n" + "    eval('1')\n" * 5000
    report, _ = _run(meter_task, session, {meter.SOLUTION: many.encode()})
    assert report.forged and len(report.forgery) > 5000 and not report.tests, report.message
    assert len(report.message or "") < 4000 and report.transcript == report.message, len(report.message or "")
    assert (report.message or "").endswith(f"; and {len(report.forgery) - 20} more")


def test_the_honest_in_process_reference_passes_and_its_stub_fails(meter_task, session):
    report, _ = _run(meter_task, session, {meter.SOLUTION: meter.REFERENCE.encode()})
    assert report.passed, report.transcript or report.message
    assert sorted(t.name for t in report.tests) == sorted(meter.CASES)
    stub, _ = _run(meter_task, session, {meter.SOLUTION: meter.STUB.encode()})
    assert stub.status is Status.failed and not stub.forged and len(stub.tests) == 3
