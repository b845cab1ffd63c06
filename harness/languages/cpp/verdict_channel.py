"""Reading the verdict channel of a test binary (harness/languages/cpp/assets/verdict_channel.cpp)
and deciding, in the harness's process, what the run says.

The binary's own report (Catch2's XML, written by a reporter in the candidate's process)
can say anything its author wants; the channel is written by the harness's listener while
the tests run, on a pipe, one line per event, and closed by a completion record that signs
everything before it (HMAC-SHA256) with a token only this run was given; the token itself is
never written, so a candidate that reads the pipe learns nothing it could sign with. The harness also gave the run the names of two sentinel
cases, compiled without the solution: one must pass and one must fail. The reader accepts
exactly the lines the listener writes, within bounds, and never raises; the verdict is the
channel's, and the XML only lends its details (messages, captured output, tags) to the cases
on which it agrees with the channel. Whatever an honest binary could not have written makes
the run forged:

- a line that is not one of the listener's records, a record out of order, a case twice,
  a completion record not signed with this run's token, anything after it;
- a missing sentinel, or a sentinel with the wrong outcome;
- an exit status that disagrees with the completion record, or a clean exit (status 0)
  without one;
- a count of test cases other than the one the task's test files declare;
- an XML report whose cases disagree with the channel's.

A stream that merely stops (the binary crashed, or was killed, and its status says so) is
an honest failure: the cases that ended before it count, as with a cut XML report."""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from dataclasses import dataclass, field

from ...records import AssertionCount, Status, TestCaseResult
from .catch2 import CatchRun

_WORD = 32  # hex digits of the token and of each sentinel name, as verdict_channel.cpp reads them
_NAME_HEX = 8192   # the listener writes at most 4096 bytes of a name, 256 of a message
_MESSAGE_HEX = 512
MAX_LINE = _NAME_HEX + _MESSAGE_HEX + 128
MAX_CASES = 20_000
# What the harness keeps of the channel: room for MAX_CASES cases of ordinary names.
CHANNEL_CAP = 4 * 1024 * 1024

_START = re.compile(rb'\{"e":"start","n":"((?:[0-9a-f]{2}){0,%d})"\}' % (_NAME_HEX // 2))
_END = re.compile(rb'\{"e":"end","n":"((?:[0-9a-f]{2}){0,%d})","ok":(true|false),"p":(\d{1,10}),"f":(\d{1,10}),'
                  rb'"m":"((?:[0-9a-f]{2}){0,%d})"\}' % (_NAME_HEX // 2, _MESSAGE_HEX // 2))
_DONE = re.compile(rb'(\{"e":"done","code":(\d{1,3}),"cases":(\d{1,10})),"mac":"([0-9a-f]{64})"\}')


@dataclass(frozen=True)
class ChannelKeys:
    """What one run is given on its stdin: the token its completion record must carry and
    the names of its two sentinel cases, all fresh."""

    token: str
    pass_name: str
    fail_name: str

    @staticmethod
    def fresh() -> "ChannelKeys":
        return ChannelKeys(*(secrets.token_hex(_WORD // 2) for _ in range(3)))

    def stdin(self) -> bytes:
        return f"{self.token} {self.pass_name} {self.fail_name}\n".encode()

    def is_sentinel(self, name: str) -> bool:
        return name in (self.pass_name, self.fail_name)

    def signature(self, signed: bytes) -> str:
        """The completion record's mac over `signed`: every byte before the record and the
        record's own fields."""
        return hmac.new(self.token.encode(), signed, hashlib.sha256).hexdigest()


@dataclass
class ChannelCase:
    name: str
    ok: bool
    passed: int
    failed: int
    message: str


@dataclass
class ChannelRun:
    """What the channel said: the cases that ended (sentinels apart), the case that started
    and did not end, the completion record's exit code (None without one), and every
    finding no honest binary produces."""

    cases: list[ChannelCase] = field(default_factory=list)
    sentinels: dict[str, ChannelCase] = field(default_factory=dict)
    unfinished: str | None = None
    code: int | None = None
    forgery: list[str] = field(default_factory=list)

    @property
    def complete(self) -> bool:
        return self.code is not None


def _text(hexed: bytes) -> str:
    return bytes.fromhex(hexed.decode()).decode("utf-8", errors="replace")


def read_channel(data: bytes, keys: ChannelKeys, truncated: bool = False) -> ChannelRun:
    """The channel's records, read strictly; the first fault ends the reading and, when no
    honest listener writes it, is recorded as forgery."""
    run = ChannelRun()

    def forged(why: str) -> ChannelRun:
        run.forgery.append(f"verdict channel: {why}")
        run.code = None
        return run

    if truncated:
        return forged(f"more than {CHANNEL_CAP} bytes")
    lines = data.split(b"\n")
    tail = lines.pop()  # after the last newline: empty unless the binary stopped mid-line
    names: set[str] = set()
    done_at: int | None = None
    offset = 0  # of the line, in data
    for number, line in enumerate(lines, 1):
        start, offset = offset, offset + len(line) + 1
        if done_at is not None:
            return forged(f"line {number} follows the completion record")
        if len(line) > MAX_LINE:
            return forged(f"line {number} is longer than {MAX_LINE} bytes")
        if (m := _START.fullmatch(line)) is not None:
            if run.unfinished is not None:
                return forged(f"line {number}: a case starts inside another")
            run.unfinished = _text(m.group(1))
            continue
        if (m := _END.fullmatch(line)) is not None:
            name = _text(m.group(1))
            if run.unfinished != name:
                return forged(f"line {number}: a case ends that did not start")
            if name in names:
                return forged(f"line {number}: the case {name[:80]!r} ran twice")
            if len(names) >= MAX_CASES:
                return forged(f"more than {MAX_CASES} cases")
            ok, failed = m.group(2) == b"true", int(m.group(4))
            if ok != (failed == 0):
                return forged(f"line {number}: the outcome disagrees with the failed assertions")
            names.add(name)
            case = ChannelCase(name, ok, int(m.group(3)), failed, _text(m.group(5)))
            if keys.is_sentinel(name):
                run.sentinels[name] = case
            else:
                run.cases.append(case)
            run.unfinished = None
            continue
        if (m := _DONE.fullmatch(line)) is not None:
            if not hmac.compare_digest(m.group(4).decode(), keys.signature(data[:start] + m.group(1))):
                return forged(f"line {number}: the completion record is not signed with this run's token")
            if run.unfinished is not None:
                return forged(f"line {number}: the run completes inside a case")
            code, cases = int(m.group(2)), int(m.group(3))
            if cases != len(names):
                return forged(f"the completion record counts {cases} cases, the stream {len(names)}")
            if code != min(255, sum(c.failed for c in run.cases)):
                return forged(f"the completion record's exit code {code} disagrees with the failed assertions")
            run.code = code
            done_at = number
            continue
        return forged(f"line {number} is no record of the harness's listener: {line[:80]!r}")
    if tail:
        if done_at is not None:
            return forged("bytes follow the completion record")
        if len(tail) > MAX_LINE:
            return forged("a line longer than the bound")
    if done_at is not None:
        for name, outcome in ((keys.pass_name, True), (keys.fail_name, False)):
            got = run.sentinels.get(name)
            if got is None:
                return forged("a sentinel case did not run")
            if got.ok is not outcome:
                return forged(f"the sentinel case that must {'pass' if outcome else 'fail'} did not")
    return run


def judged(xml: CatchRun, channel: ChannelRun, exit_code: int | None, timed_out: bool,
           declared: int) -> tuple[CatchRun, list[str]]:
    """The run as the channel says it went, with the XML's details on the cases where both
    agree, and every reason the run is forged."""
    forgery = list(channel.forgery)
    if not forgery and channel.complete and exit_code != channel.code:
        forgery.append(f"the test binary exited with status {exit_code}, its completion record says {channel.code}")
    if not forgery and not channel.complete and exit_code == 0 and not timed_out:
        forgery.append("the test binary exited with status 0 before the run completed")
    if not forgery and channel.complete and len(channel.cases) != declared:
        forgery.append(f"{len(channel.cases)} test cases ran; the task's test files declare {declared}")
    details: dict[str, TestCaseResult] = {}
    for case in xml.cases:
        details.setdefault(case.name, case)
    cases = []
    for c in channel.cases:
        told = details.get(c.name)
        status = Status.passed if c.ok else Status.failed
        if told is not None and told.status is not status and not forgery:
            forgery.append(f"the test binary's report says {c.name[:80]!r} {told.status.value}, the channel {status.value}")
        if told is not None and told.status is status:
            cases.append(told)
        else:
            cases.append(TestCaseResult(name=c.name, status=status, message=None if c.ok else (c.message or "failed")))
    assertions = None
    if channel.complete:
        assertions = AssertionCount(passed=sum(c.passed for c in channel.cases),
                                    failed=sum(c.failed for c in channel.cases))
    unreadable = None if channel.complete or cases else (channel.forgery[0] if channel.forgery else
                                                         "the verdict channel holds no finished case")
    return CatchRun(cases=cases, complete=channel.complete, unreadable=unreadable, assertions=assertions), forgery
