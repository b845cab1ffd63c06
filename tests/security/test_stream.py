"""The probe's stream as a forger writes it, read in the harness's process: every shape an
honest probe never writes is `forged` (not a pass, not a crash of the reader), and no
comparison of what the schema admits can raise. A forger that stays inside the schema
writes values, and earns what an honest program producing them earns (that end to end, in
the sandbox: test_verifier_candidates.py)."""

from __future__ import annotations

import pytest

from harness.probe.compare import Comparison, call_matches, same, same_unordered
from harness.probe.stream import read_stream


def stream(*records: str, after: str = "") -> bytes:
    """A complete, well-framed stream of one call per record, each record as written."""
    lines = [f"probe 1 {len(records)}"]
    for i, record in enumerate(records):
        lines += [f"case {i} {f'call {i}'.encode().hex()}", f"rec {i} 0 {record}", f"end {i} 1"]
    lines.append(f"done {len(records)}")
    return ("\n".join(lines) + "\n" + after).encode()


def forged(data: bytes) -> str:
    got = read_stream(data)
    assert not got.complete and got.forged, got.problem
    return got.problem


HONEST = '{"o":[{"v":"2234567890"}]}'


def test_an_honest_stream_is_complete():
    got = read_stream(stream(HONEST, '{"o":[{"x":"std::domain_error"}]}', '{"o":[{"v":1}],"x":"std::runtime_error"}'))
    assert got.complete and not got.forged


@pytest.mark.parametrize("record", [
    '{"o":[{"v":0,"x":null}]}',                       # a value and an exception at once
    '{"o":[{"v":"2234567890","x":"std::domain_error"}]}',
    '{"o":[{}]}',                                      # neither
    '{"o":[{"v":"1","w":2}]}',                         # a key beside it
    '{"o":[{"x":null}]}',                              # an exception with no type
    '{"o":[{"v":"1","v":"2234567890"}]}',              # a key twice, the second the right answer
    '{"o":[{"v":"1"}],"o":[{"v":"2"}]}',
    '{"o":[{"v":NaN}]}', '{"o":[{"v":Infinity}]}', '{"o":[{"v":-Infinity}]}',
    '{"o":[{"v":' + "9" * 400 + '}]}',                 # digits no 64-bit integer has
    '{"o":[{"v":' + "[" * 100_000 + "]" * 100_000 + '}]}',   # deeper than any reader's stack
    '{"o":[{"v":"' + "A" * (2 << 20) + '"}]}',         # a string of 2 MiB
    '{"o":[{"v":"\xff\xfe"}]}',                        # bytes that are not UTF-8 (the probe escapes them)
    '{"o":[{"v":"caf\u00e9"}]}',                        # text the probe would have escaped
    '{"o":[{"v":{"text":1}}]}',                         # an encoder's object with the wrong inside
    '{"o":[{"v":{"anything":"else"}}]}',
    '{"o":[{"v":1}],"p":2}',                           # a call record with another key
    '{"o":{"v":1}}', '[1,2]', '"o"', 'null',
    # Python's forms, each with what no driver writes inside.
    '{"o":[{"v":{"int":"5"}}]}',                        # an int the plain form holds
    '{"o":[{"v":{"int":"0' + "1" * 30 + '"}}]}',        # a leading zero
    '{"o":[{"v":{"int":"' + "1" * 4301 + '"}}]}',       # more digits than int() reads
    '{"o":[{"v":{"int":12345678901234567890123}}]}',
    '{"o":[{"v":{"bytes":"abc"}}]}', '{"o":[{"v":{"bytes":"ZZ"}}]}',
    '{"o":[{"v":{"tuple":"ab"}}]}', '{"o":[{"v":{"set":[{"text":1}]}}]}',
    '{"o":[{"v":{"dict":[[1]]}}]}', '{"o":[{"v":{"dict":[[1,2,3]]}}]}', '{"o":[{"v":{"dict":{"a":1}}}]}',
    '{"o":[{"v":{"range":[0,1,0]}}]}', '{"o":[{"v":{"range":[0,"1",1]}}]}', '{"o":[{"v":{"range":[0,1]}}]}',
    '{"o":[{"v":{"class":5}}]}', '{"o":[{"v":{"object":["A"]}}]}', '{"o":[{"v":{"object":["A",5]}}]}',
    '{"o":[{"v":{"object":["A","' + "r" * (1 << 17) + '"]}}]}',
    '{"o":[{"v":{"digest":"abc"}}]}', '{"o":[{"v":{"digest":"' + "A" * 64 + '"}}]}',
    '{"o":[{"v":{"tuple":[1],"set":[1]}}]}',
])
def test_a_record_outside_the_schema_is_forged(record):
    assert forged(stream(record).replace(b"\xc3\xbf\xc3\xbe", b"\xff\xfe"))


@pytest.mark.parametrize("after", [
    "done 1\n",                                        # records after the end
    f"rec 0 1 {HONEST}\n",
    "probe 1 1\n",                                     # a second stream, from a forked child
    "x",
])
def test_anything_after_the_end_is_forged(after):
    assert "follows the end" in forged(stream(HONEST, after=after))


def test_interleaved_lines_of_two_writers_are_forged():
    one = stream(HONEST, HONEST).decode().splitlines()
    mixed = "\n".join([one[0], one[1], one[1], *one[2:]]) + "\n"   # a child's copy of a line, out of turn
    assert forged(mixed.encode())


def test_a_stream_that_only_stops_is_incomplete_not_forged():
    data = stream(HONEST, HONEST)
    for cut in (b"", data[: data.index(b"case 1")], data[:-3]):
        got = read_stream(cut)
        assert not got.complete and not got.forged


def test_an_outcome_that_is_both_or_neither_matches_nothing():
    value = {"o": [{"v": "2234567890"}]}
    assert not call_matches(value, {"o": [{"v": 0, "x": None}]}, Comparison())
    assert not call_matches(value, {"o": [{"v": "2234567890", "x": None}]}, Comparison())
    assert not call_matches({"o": [{"x": "std::domain_error"}]}, {"o": [{"x": "std::domain_error", "v": 1}]},
                            Comparison(mode="exception"))
    assert not call_matches(value, {"o": [{}]}, Comparison())


BIG = {"int": "9" * 4300}


@pytest.mark.parametrize("observed", [10 ** 400, -(10 ** 400), float("inf"), float("nan"), 1e308, [[[[]]]],
                                      {"float": "inf"}, "2234567890", None, True, BIG, {"tuple": [BIG, 1e308]},
                                      {"set": [BIG, [1]]}, {"dict": [[BIG, 1.5], [[1], None]]},
                                      {"range": [BIG, 0, -1]}, {"object": ["A", None]}])
def test_no_comparison_raises_whatever_the_value(observed):
    for how in (Comparison(), Comparison(mode="approx", abs_tol=1e-6), Comparison(mode="approx", rel_tol=1e-3),
                Comparison(mode="unordered"), Comparison(mode="exception")):
        for expected in (1.5, 10 ** 19, [1, 2], {"float": "nan"}, "x", BIG, {"set": [1, BIG]}, {"dict": [[1, 2]]}):
            call_matches({"o": [{"v": expected}]}, {"o": [{"v": observed}]}, how)
    assert not same(10 ** 400, 1.0, rel_tol=1e-9) and same(10 ** 400, 10 ** 400, abs_tol=1.0)
    assert same_unordered([observed, 1], [1, observed]) or observed != observed  # NaN is equal to nothing
