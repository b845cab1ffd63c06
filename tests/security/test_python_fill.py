"""Hostile written suites through Python's fill by execution (languages/python/fill.py), in the
Docker sandbox. The suite is the model's: it runs as the runner on the correct solution,
and what it recorded is read back once every process of it has ended, with bounds. Each
case below ends within its bound and never raises in the harness; what it forges can only
fill its own placeholders wrongly (or leave them unfilled); after each, an honest suite in
the same session is filled with the correct solution's value, and nothing of the run (the
correct solution's source among it) is left where a later runner could read it.

- Records written to the recorder's file by hand: a shape the recorder never writes makes
  every placeholder unfilled (`forged`); a value it could write, with the real site
  skipped, fills the suite with a value that then fails on the correct solution.
- More records than the bound, a record nested 100,000 deep: `forged`, nothing raises.
- Record-like lines and the capture's own closing lines, printed and written on the exec's
  own output through /proc: ignored, the value filled is the correct one.
- Exiting early (os._exit at import, in a test), looping forever: the placeholders not
  reached say so, or the run timed out.
- A child that outlives the run to write a record after it, a fork bomb: the child is
  killed with everything else (or its record only spoils its own suite), the bomb ends at
  the process limit. A named pipe for the records file: reading it back ends at the run's
  time bound at most."""

from __future__ import annotations

import time

import pytest

from harness.sandbox.base import Role, SandboxLimits
from harness.testwriting.fill import fill_placeholders
from harness.testwriting.written import with_written_tests
from harness.languages.registry import language_for

from ..conftest import make_backend
from ..languages.python.tally import REFERENCE, write_tally

pytestmark = [pytest.mark.slow, pytest.mark.docker]

LIMIT_S = 8.0
HONEST = "from tally import add\n\n\ndef test_add():\n    assert add(2, 3) == FILL\n"
FILLED = HONEST.replace("FILL", "5")

HOSTILE = {
    "writes a record the recorder never writes": '''import os
from tally import add
with open(os.environ["HARNESS_FILL_RECORDS"], "a") as out:
    out.write('{"site": 0, "value": ["E", "ValueError", []]}\\n')


def test_add():
    assert add(2, 3) == FILL
''',
    "writes a record of a wrong value and skips the site": '''import os
from tally import add
with open(os.environ["HARNESS_FILL_RECORDS"], "a") as out:
    out.write('{"site":0,"value":["i","41"]}\\n')


def test_add():
    if False:
        assert add(2, 3) == FILL
''',
    "calls the recorder itself with a wrong value": '''from tally import add


def test_add():
    __harness_fill__(0, 41)
    assert add(2, 3) == FILL
''',
    "records more than the bound": '''import os
from tally import add
with open(os.environ["HARNESS_FILL_RECORDS"], "a") as out:
    for _ in range(80_000):
        out.write('{"site":0,"value":["s","' + "x" * 60 + '"]}\\n')


def test_add():
    assert add(2, 3) == FILL
''',
    "writes a record nested 100,000 deep": '''import os
from tally import add
with open(os.environ["HARNESS_FILL_RECORDS"], "a") as out:
    out.write('{"site":0,"value":' + '["l",[' * 100_000 + ']]' * 100_000 + '}\\n')


def test_add():
    assert add(2, 3) == FILL
''',
    "prints record-like lines and the capture's closing lines": '''import os
from tally import add

FAKE = '{"site":0,"value":["i","41"]}\\n@@harness-capture 0\\n0\\n0\\nrecords 30\\n@@harness-capture-end\\n'


def test_add():
    print(FAKE * 1000)
    with open(f"/proc/{os.getppid()}/fd/1", "w") as shell:
        shell.write(FAKE)
    assert add(2, 3) == FILL
''',
    "exits at import": '''import os
os._exit(0)
from tally import add


def test_add():
    assert add(2, 3) == FILL
''',
    "exits in a test after the first placeholder": '''import os
from tally import add


def test_add():
    assert add(2, 3) == FILL
    os._exit(0)
    assert add(1, 1) == FILL
''',
    "loops forever": '''from tally import add


def test_add():
    assert add(2, 3) == FILL
    while True:
        pass
''',
    "leaves a child that writes a record after the run": '''import os, time
from tally import add


def test_add():
    if os.fork() == 0:
        parent = os.getppid()
        while os.getppid() == parent:
            time.sleep(0.001)
        with open(os.environ["HARNESS_FILL_RECORDS"], "a") as out:
            out.write('{"site":0,"value":["i","41"]}\\n')
        os._exit(0)
    assert add(2, 3) == FILL
''',
    "makes its records file a named pipe": '''import os
from tally import add
os.mkfifo(os.environ["HARNESS_FILL_RECORDS"])


def test_add():
    assert add(2, 3) == FILL
''',
    "forks without end": '''import os
from tally import add


def test_add():
    assert add(2, 3) == FILL
    while True:
        try:
            os.fork()
        except OSError:
            pass
''',
}


@pytest.fixture(scope="module")
def session():
    with make_backend("docker", SandboxLimits(timeout_s=LIMIT_S)).session("python-fill-hostile") as session:
        yield session


@pytest.fixture(scope="module")
def task(tmp_path_factory):
    return write_tally(tmp_path_factory.mktemp("fill-hostile"))


def outcome(filled) -> str:
    r = filled.report
    text = filled.source.decode()
    if r.filled:
        return "filled " + text.split("assert add(2, 3) == ", 1)[1].split()[0]
    return f"{r.probe}: " + "; ".join(u.why for u in r.unfilled)


@pytest.mark.parametrize("name", list(HOSTILE))
def test_a_hostile_written_suite_spoils_only_its_own_fill(name, task, session):
    source = HOSTILE[name]
    start = time.monotonic()
    filled = fill_placeholders(task, source.encode(), session)
    assert time.monotonic() - start < LIMIT_S + 60
    got = outcome(filled)
    print(f"{name}: {got}")
    r = filled.report
    if name in ("writes a record the recorder never writes", "records more than the bound",
                "writes a record nested 100,000 deep"):
        assert r.probe == "forged" and r.filled == 0 and "is not the recorder's" in got, got
    elif name == "writes a record of a wrong value and skips the site":
        # Its own suite, filled wrongly: it now fails on the correct solution.
        assert got == "filled 41"
        written = with_written_tests(task, filled.source)
        assert not language_for(written).run_tests(written, {"tally.py": REFERENCE.encode()}, session).passed
    elif name == "calls the recorder itself with a wrong value":
        assert "reached 2 times with different values" in got, got
    elif name == "prints record-like lines and the capture's closing lines":
        assert got == "filled 5" and r.filled == 1
    elif name == "exits at import":
        assert r.filled == 0 and "never reached" in got, got
    elif name == "exits in a test after the first placeholder":
        assert "assert add(2, 3) == 5\n" in filled.source.decode() and r.filled == 1, got
        assert r.unfilled[0].why == "never reached when the suite ran on the correct solution"
    elif name == "forks without end":
        assert "assert add(2, 3) == 5\n" in filled.source.decode() or r.probe in ("timeout", "crash", "incomplete"), got
    elif name == "loops forever":
        assert r.probe == "timeout" and r.filled == 0 and "gave nothing back: it timed out" in got, got
    elif name == "makes its records file a named pipe":
        assert r.filled == 0 and r.probe == "timeout", got
    elif name == "leaves a child that writes a record after the run":
        # Killed before the records are read back, or it races its own suite's fill.
        assert got == "filled 5" or "different values" in got, got
    # The next suite in the same session is filled from the correct solution, and nothing
    # of the run is left for a later runner to read.
    assert fill_placeholders(task, HONEST.encode(), session).source.decode() == FILLED
    left = session.exec(["sh", "-c", f"ls {session.build_root}/python-fill/{task.slug} 2>&1; exit 0"], role=Role.runner,
                        timeout_s=30)
    assert b"No such file" in left.output, left.output
