"""Python's probe, the parts that run without a sandbox: calls parsed in the harness's process
(an expression, or statements with `=>` observations; what does not parse is one line of
bad input), the default prelude (the stub's public names), and the driver's values: each
Python value written in the probe's schema (read back strictly, as the harness reads the
stream), with the forms JSON loses, compared as Python's == compares the values (a tuple is
never a list, a set's members and a dict's entries in any order, a big int the int it is),
and a value over the schema's bounds cut to its digest, never a record the reader refuses."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections import Counter, OrderedDict

import pytest

from harness.errors import BadInput
from harness.languages.python.probe.calls import default_prelude, parse_call
from harness.languages.python.probe.run import BOUNDS
from harness.languages.python.probe.runtime import Encoder, exception_name
from harness.languages.python.proxy.install import ProxyConfig, install
from harness.paths import package_file
from harness.probe.compare import Comparison, call_matches, same, same_unordered
from harness.probe.schema import MAX_RECORD, MAX_STRING, read_record
from harness.probe.stream import read_stream

from .tally import REFERENCE, write_tally

ENCODER = Encoder(BOUNDS, lambda value: False, lambda value: None)


def written(*values) -> list:
    """The values as the driver writes them in one record, read back as the harness reads it."""
    line = ENCODER.record({"o": [{"v": ENCODER.value(v)} for v in values]})
    return [o["v"] for o in read_record(line.encode(), "call")["o"]]


def test_python_values_keep_what_json_loses_and_read_back_strictly():
    got = written(None, True, 7, 2.5, "é\x7f\n", [1, "a"], (1, 2), {3, 1, 2}, frozenset({"b", "a"}),
                  {"b": 2, 1: "a"}, OrderedDict(x=1), Counter("aa"), b"\x00\xff", 10 ** 25, -(10 ** 21),
                  float("nan"), float("-inf"), range(0), range(5, 5), range(1, 8, 3), int, ValueError)
    assert got == [None, True, 7, 2.5, "é\x7f\n", [1, "a"], {"tuple": [1, 2]}, {"set": [1, 2, 3]},
                   {"set": ["a", "b"]}, {"dict": [["b", 2], [1, "a"]]}, {"dict": [["x", 1]]}, {"dict": [["a", 2]]},
                   {"bytes": "00ff"}, {"int": str(10 ** 25)}, {"int": str(-(10 ** 21))}, {"float": "nan"},
                   {"float": "-inf"}, {"range": [0, 0, 1]}, {"range": [0, 0, 1]}, {"range": [1, 10, 3]},
                   {"class": "int"}, {"class": "ValueError"}]
    # An object of no other form is its class and its repr.
    assert written(Ellipsis) == [{"object": ["ellipsis", "Ellipsis"]}]


PAIRS = [
    (1, 1.0), ((1, 2), [1, 2]), ((1, 2), (1, 2)), ({1, 2}, frozenset({2, 1})), ({1, 2}, {1, 3}),
    ({1: "a", 2: "b"}, {2: "b", 1: "a"}), ({1: "a"}, {1: "b"}), ({(1, 2): 3}, {(1, 2): 3}), ({(1, 2): 3}, {(2, 1): 3}),
    (b"a", "a"), (b"a", b"a"), (10 ** 30, 10 ** 30), (10 ** 22, 1e22), (10 ** 30, 1e30), (10 ** 30, 10 ** 30 + 1),
    (range(0), range(3, 3)), (range(0, 6, 2), range(0, 5, 2)), (range(3), [0, 1, 2]), ({1.0, 2}, {1, 2.0}),
    ([(1, {2: 3})], [(1, {2: 3})]), ([(1, {2: 3})], [(1, {2: 4})]), ("a", "b"), (None, 0), ({}, []), ((), []),
]


@pytest.mark.parametrize("a, b", PAIRS, ids=[repr(p) for p in PAIRS])
def test_exact_comparison_is_pythons_equality_on_the_values(a, b):
    left, right = written(a, b)
    assert same(left, right) is (a == b)
    assert same(right, left) is (a == b)


def test_where_it_departs_from_python_a_value_is_what_it_is():
    # A boolean is never a number, and a NaN is the same value as a NaN (C++'s rules too).
    assert not same(*written(True, 1))
    assert same(*written(float("nan"), float("nan")))


def test_unordered_and_approx_keep_their_meaning_on_python_forms():
    tuple_a, tuple_b, pairs_a, pairs_b = written((1, 2, 2), (2, 1, 2), {1: 2}, {2: 1})
    assert same_unordered(tuple_a, tuple_b) and not same(tuple_a, tuple_b)
    assert not same_unordered(pairs_a, pairs_b)  # a key is never taken for its value
    close = written((1.0, {"x": 2.0}), (1.0000001, {"x": 2.0}))
    assert same(*close, rel_tol=1e-6) and not same(*close)
    how = Comparison(mode="unordered")
    assert call_matches({"o": [{"v": tuple_a}]}, {"o": [{"v": tuple_b}]}, how)


def test_a_value_over_the_bounds_is_its_digest_and_the_record_always_reads_back():
    long_a, long_b = "x" * (MAX_STRING + 1), "y" * (MAX_STRING + 1)
    deep: list = []
    for _ in range(60):
        deep = [deep]
    got = written(long_a, long_a, long_b, deep, b"\x01" * MAX_STRING)
    assert all(set(v) == {"digest"} for v in got)
    assert got[0] == got[1] != got[2]
    # Many values that fit alone but not together: the largest are cut until the line fits.
    many = written(*["z" * (MAX_STRING - 10) for _ in range(40)], 5)
    assert many[-1] == 5 and any(isinstance(v, str) for v in many) and any(isinstance(v, dict) for v in many)
    line = ENCODER.record({"o": [{"v": ENCODER.value("w" * (MAX_STRING - 10))} for _ in range(40)]})
    assert len(line) <= MAX_RECORD


def test_an_exception_is_named_as_python_names_it():
    class InvalidInput(ValueError):
        pass

    assert exception_name(KeyError("k")) == "KeyError"
    assert exception_name(InvalidInput()) == f"{__name__}.{InvalidInput.__qualname__}"


def test_a_call_is_an_expression_or_statements_with_observations():
    assert parse_call("add(2, 3)") == [(True, "add(2, 3)")]
    assert parse_call("{\n  'a': add(1, 1),\n}") == [(True, "{\n  'a': add(1, 1),\n}")]
    steps = parse_call("""
        t = Tally()
        for w in "ab":
            t.count(w)
        => t.total()
        t.count("c")
        => t.total()
    """)
    assert steps == [(False, 't = Tally()\nfor w in "ab":\n    t.count(w)'), (True, "t.total()"),
                     (False, 't.count("c")'), (True, "t.total()")]


@pytest.mark.parametrize("call, words", [
    ("", "empty"),
    ("t = Tally()", "must observe something"),
    ("add(2,", "does not parse as a Python expression"),
    ("t = Tally()\n=> ", "without an expression"),
    ("for x in y:\n    => x", "inside a block"),
    ("=> t.total(", "does not parse as a Python expression"),
    ("if x\n=> 1", "does not parse as Python statements"),
])
def test_a_call_that_does_not_parse_is_bad_input(call, words):
    with pytest.raises(BadInput, match=words):
        parse_call(call)


def test_the_default_prelude_imports_the_public_names_the_stub_defines(tmp_path):
    task = write_tally(tmp_path)
    assert default_prelude(task) == "import tally\nfrom tally import add, words, Tally"


def drive(tmp_path, calls: list[str], **proxy) -> tuple[str, list]:
    """The driver run here, as the sandbox runs it, over the proxy of tally's reference (its
    server started by the proxy itself, unless `proxy` names pipes): (status line, records)."""
    (tmp_path / "candidate").mkdir()
    (tmp_path / "candidate" / "tally.py").write_text(REFERENCE)
    config = ProxyConfig(module="tally", candidate_dir=str(tmp_path / "candidate"), python=sys.executable, **proxy)
    install(tmp_path / "proxy", [config])
    (tmp_path / "calls.json").write_text(json.dumps({
        "calls": [parse_call(c) for c in calls], "prelude": default_prelude(write_tally(tmp_path / "task")),
        "modules": ["tally"], "bounds": BOUNDS, "stream": str(tmp_path / "stream"), "status": str(tmp_path / "status")}))
    runtime = package_file("languages", "python", "probe", "runtime.py")
    subprocess.run([sys.executable, str(runtime), str(tmp_path / "calls.json")], cwd=tmp_path, timeout=120, check=True,
                   env={"PATH": os.environ["PATH"], "PYTHONPATH": str(tmp_path / "proxy")})
    stream = read_stream((tmp_path / "stream").read_bytes())
    return (tmp_path / "status").read_text().strip(), [r for case in stream.cases for r in case.records]


def test_the_driver_writes_each_calls_record_and_says_how_it_ended(tmp_path):
    status, records = drive(tmp_path, ["add(2, 3)", "t = Tally()\n=> t.count('a').total()\nt.count(1, 2)\n=> 0",
                                       "int(add(2 ** 13999, 2 ** 13999))"])
    assert status == "ok"
    assert records == [{"o": [{"v": 5}]}, {"o": [{"v": 1}], "x": "TypeError"},
                       {"o": [{"x": "_harness_proxy.proxies.OverBounds"}]}]


def test_a_server_that_never_starts_is_the_sandboxs_not_the_candidates(tmp_path):
    # Pipes no server opens: none of the candidate's code ran, and the status says so.
    pipes = (str(tmp_path / "to-server"), str(tmp_path / "from-server"))
    for pipe in pipes:
        os.mkfifo(pipe)
    status, records = drive(tmp_path, ["add(2, 3)"], fifos=pipes, start_timeout_s=0.2)
    assert status.startswith("start ") and "did not start" in status and records == []
