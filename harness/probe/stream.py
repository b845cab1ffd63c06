"""Reading a probe's stream: the framed records a probe writes, in every language (a C++
probe program on its fd 4, harness/languages/cpp/probe/assets/include/harness_probe.hpp
has the format; Python's driver to a file only the builder reads,
languages/python/probe/runtime.py). The reader is strict:
every case and record must come in order, each exactly once, with the counts the frames
declare, each record within the schema (schema.py), and nothing may follow the final line.
What precedes the first fault is kept; the fault says why the stream is not complete.

Two kinds of fault: a stream that stops (the program ended or was killed before it was
done: `incomplete`), and one that holds what no honest probe writes (a line out of its
framing, a reordered or repeated record, a record outside the schema, anything after the
last line: `forged`)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from .schema import MAX_STRING, Forged, RecordKind, read_record

_HEADER = re.compile(rb"probe 1 (\d{1,9})")
_CASE = re.compile(rb"case (\d{1,9}) ((?:[0-9a-f]{2}){0,%d})" % MAX_STRING)
_RECORD = re.compile(rb"rec (\d{1,9}) (\d{1,9}) (.*)")
_END = re.compile(rb"end (\d{1,9}) (\d{1,9})")
_DONE = re.compile(rb"done (\d{1,9})")


@dataclass
class CaseStream:
    name: str
    records: list[dict[str, Any]] = field(default_factory=list)
    ended: bool = False


@dataclass
class ProbeStream:
    cases: list[CaseStream] = field(default_factory=list)
    declared: int | None = None  # the number of cases the header announced
    problem: str | None = None   # None when the stream is complete and well formed
    forged: bool = False         # the problem is something no honest probe writes

    @property
    def complete(self) -> bool:
        return self.problem is None


def read_stream(data: bytes, kind: RecordKind = "call") -> ProbeStream:
    """The stream of a probe whose records are of `kind`: a driver's calls, or a test
    file's assertions."""
    out = ProbeStream()
    lines = data.split(b"\n")
    tail = lines.pop()  # after the last newline: empty unless the stream stops mid-line

    def stop(why: str) -> ProbeStream:
        out.problem = why
        return out

    def forged(why: str) -> ProbeStream:
        out.forged = True
        return stop(why)

    if not lines:
        return stop("the probe wrote nothing: the program ended before its main ran" if not tail
                    else "the stream stops in its first line")
    head = _HEADER.fullmatch(lines[0])
    if head is None:
        return forged(f"the stream does not begin with the probe's header: {lines[0][:80]!r}")
    out.declared = int(head.group(1))
    current: CaseStream | None = None
    for number, line in enumerate(lines[1:], 2):
        if current is not None and not current.ended:
            rec = _RECORD.fullmatch(line)
            if rec is not None:
                i, j = int(rec.group(1)), int(rec.group(2))
                if i != len(out.cases) - 1 or j != len(current.records):
                    return forged(f"line {number}: record {i}/{j} out of order (expected {len(out.cases) - 1}/{len(current.records)})")
                try:
                    current.records.append(read_record(rec.group(3), kind))
                except Forged as exc:
                    return forged(f"line {number}: record {i}/{j}: {exc}")
                continue
            end = _END.fullmatch(line)
            if end is not None:
                if int(end.group(1)) != len(out.cases) - 1 or int(end.group(2)) != len(current.records):
                    return forged(f"line {number}: case {len(out.cases) - 1} ends with the wrong index or count")
                current.ended = True
                continue
            return forged(f"line {number}: not a record or the end of case {len(out.cases) - 1}: {line[:80]!r}")
        case = _CASE.fullmatch(line)
        if case is not None:
            if int(case.group(1)) != len(out.cases):
                return forged(f"line {number}: case {int(case.group(1))} out of order (expected {len(out.cases)})")
            if len(out.cases) >= out.declared:
                return forged(f"line {number}: more cases than the {out.declared} announced")
            current = CaseStream(bytes.fromhex(case.group(2).decode()).decode(errors="replace"))
            out.cases.append(current)
            continue
        done = _DONE.fullmatch(line)
        if done is not None:
            if int(done.group(1)) != out.declared or len(out.cases) != out.declared:
                return forged(f"line {number}: the stream ends after {len(out.cases)} of {out.declared} cases")
            if number != len(lines) or tail:
                return forged("something follows the end of the stream")
            return out
        return forged(f"line {number}: not a line the probe writes: {line[:80]!r}")
    if current is not None and not current.ended:
        return stop(f"the stream stops in case {len(out.cases) - 1} ({current.name!r})")
    return stop(f"the stream stops after {len(out.cases)} of {out.declared} cases")
