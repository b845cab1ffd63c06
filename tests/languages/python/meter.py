"""A small Python exercise written here whose tests read the call stack, as paasio's do, so
that it runs in one process (harness/languages/python/inprocess.py): a counting reader
that subclasses `io.BytesIO` and wraps a source the test hands it; the test helper checks,
by walking the stack for a frame of the candidate's file, that the reader reads through it."""

from __future__ import annotations

import json
from pathlib import Path

from harness.task import Task, load_task

SLUG = "meter"
SOLUTION = "meter.py"
TEST_FILE = "meter_test.py"
HELPER = "meter_utils.py"

STUB = '''import io


class Meter(io.BytesIO):
    def __init__(self, source):
        pass

    def pull(self, size):
        pass

    @property
    def pulled(self):
        pass
'''

REFERENCE = '''"""Counts what it pulls from its source."""

import io

CHUNK = 4


class Meter(io.BytesIO):
    def __init__(self, source):
        super().__init__()
        self._source = source
        self._pulled = 0

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        return super().__exit__(exc_type, exc_val, exc_tb)

    def pull(self, size=CHUNK):
        data = self._source.read(size)
        self._pulled += len(data)
        return data

    @property
    def pulled(self):
        return self._pulled
'''

HELPER_SOURCE = '''import inspect


class Source:
    """A byte source that answers only a reader in the solution's file."""

    def __init__(self, data):
        self.data = data
        self.reads = 0

    def read(self, size):
        callers = inspect.getouterframes(inspect.currentframe())
        if not any(frame.filename.endswith("meter.py") for frame in callers[1:3]):
            raise AssertionError("read from outside the solution")
        self.reads += 1
        taken, self.data = self.data[:size], self.data[size:]
        return taken
'''

TESTS = '''import unittest

from meter import Meter
from meter_utils import Source


class MeterTest(unittest.TestCase):
    def test_pulls_in_chunks(self):
        source = Source(b"abcdefghij")
        meter = Meter(source)
        self.assertEqual(meter.pull(4), b"abcd")
        self.assertEqual(meter.pull(4), b"efgh")
        self.assertEqual(source.reads, 2)

    def test_counts_what_it_pulled(self):
        meter = Meter(Source(b"abcdefghij"))
        meter.pull(3)
        meter.pull(30)
        self.assertEqual(meter.pulled, 10)

    def test_is_a_bytes_io_and_a_context_manager(self):
        with Meter(Source(b"")) as meter:
            self.assertIsInstance(meter, __import__("io").BytesIO)
            self.assertEqual(meter.pull(4), b"")
'''

CASES = ("meter_test.py::MeterTest::test_pulls_in_chunks", "meter_test.py::MeterTest::test_counts_what_it_pulled",
         "meter_test.py::MeterTest::test_is_a_bytes_io_and_a_context_manager")


def write_meter(folder: Path) -> Task:
    """The exercise in `folder`/meter."""
    root = folder / SLUG
    (root / ".meta").mkdir(parents=True)
    (root / SOLUTION).write_text(STUB)
    (root / ".meta" / "example.py").write_text(REFERENCE)
    (root / TEST_FILE).write_text(TESTS)
    (root / HELPER).write_text(HELPER_SOURCE)
    (root / ".meta" / "config.json").write_text(json.dumps({"files": {
        "solution": [SOLUTION], "test": [TEST_FILE, HELPER], "example": [".meta/example.py"]}}))
    return load_task(root)
