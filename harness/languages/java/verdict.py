"""Deciding what a Java test round says, in the harness's process.

The tests and the candidate share a JVM, so what the process prints is the candidate's to
write: none of it is read. The verdict channel is descriptor 3, written by the harness's
launcher alone (assets/HarnessLauncher.java): one line per test as it ends (its outcome,
its name, its failure and what it printed, each base64) and one per class that failed
around its tests, then `verdict <token> <tests>` with the token the launcher read from
standard input before any class of the exercise loaded; then it halts the JVM with 0 when
every test succeeded and 1 otherwise. The screen (screen.py) keeps the candidate from
files, descriptors, the process and reflection, so it can neither write there nor end the
process itself. A run passes only when:

- the channel ends with this round's record, whose count is the number of test lines;
- the process exited 0 (what the launcher does when all succeeded), and every test the
  task's test files declare has a `successful` line (or `skipped`: the task disabled it);
  nothing failed around them.

An exit status 0 without the record, or a record beside an exit status the launcher would
not have given it, is what no honest program produces: forged. A run with no record and a
failing status (a crash, a timeout) is an honest failure, with the tests that did end."""

from __future__ import annotations

import base64
import binascii
import re
import secrets
from dataclasses import dataclass, field

from ...records import Status, TestCaseResult

MAX_LINES = 20_000
_MESSAGE_CAP = 4000
_OUTCOMES = ("successful", "failed", "aborted", "skipped")
# A test the task itself disables (a bare `@Disabled`, which the round keeps as Aider's
# benchmark does) is skipped, and Gradle's build passes with it; an aborted one (an
# assumption that failed) is not a pass here.
_PASSING = ("successful", "skipped")


def fresh_token() -> str:
    return secrets.token_hex(16)


@dataclass
class Ended:
    """One test (or one class around tests) as the launcher reported it."""

    outcome: str
    name: str
    failure: str
    output: str


@dataclass
class Channel:
    tests: list[Ended] = field(default_factory=list)
    containers: list[Ended] = field(default_factory=list)
    record: int | None = None  # the count of the record with this round's token
    unreadable: str | None = None


def _text(field_: str) -> str:
    return base64.b64decode(field_, validate=True).decode("utf-8", "replace")


def read_channel(data: bytes, token: str) -> Channel:
    channel = Channel()
    lines = data.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    for n, raw in enumerate(lines):
        if n >= MAX_LINES:
            channel.unreadable = f"more than {MAX_LINES} lines"
            break
        last = n == len(lines) - 1
        record = re.fullmatch(rb"verdict ([0-9a-f]{32}) (\d{1,6})", raw)
        if record is not None and last and record.group(1).decode() == token:
            channel.record = int(record.group(2))
            break
        parts = raw.split(b" ")
        if len(parts) != 5 or parts[0] not in (b"test", b"container") or parts[1].decode("ascii", "replace") not in _OUTCOMES:
            channel.unreadable = "a line the launcher does not write"
            break
        try:
            ended = Ended(parts[1].decode(), *(_text(p.decode("ascii")) for p in parts[2:]))
        except (binascii.Error, UnicodeDecodeError, ValueError):
            channel.unreadable = "a line the launcher does not write"
            break
        (channel.tests if parts[0] == b"test" else channel.containers).append(ended)
    return channel


def judged(channel: Channel, exit_code: int | None, declared: list[str]) -> tuple[Status, list[str], str | None]:
    """The run's status, the forgery found (one reason each) and, for a run that broke
    down as a whole, why."""
    forgery = []
    if exit_code == 0 and channel.record is None:
        forgery.append("verdict channel: the JVM exited 0 without the launcher's record")
    all_ok = channel.record is not None and channel.record > 0 and not channel.containers and all(
        t.outcome in _PASSING for t in channel.tests)
    if channel.record is not None and channel.record != len(channel.tests):
        forgery.append(f"verdict channel: the record counts {channel.record} tests, the channel holds {len(channel.tests)}")
    elif channel.record is not None and exit_code is not None and exit_code != (0 if all_ok else 1):
        forgery.append(f"verdict channel: the launcher's record says {'pass' if all_ok else 'fail'}, "
                       f"the JVM exited {exit_code}")
    if forgery:
        return Status.failed, forgery, None
    outcomes = {t.name: t.outcome for t in channel.tests}
    if all_ok and exit_code == 0:
        missing = [name for name in declared if name not in outcomes]
        if missing:
            return Status.failed, [], f"no outcome for {', '.join(missing[:5])}"
        return Status.passed, [], None
    if not channel.tests and channel.record is None:
        return Status.error, [], f"no test ended (exit code {exit_code})"
    return Status.failed, [], None


def tests_of(channel: Channel, declared: list[str]) -> list[TestCaseResult]:
    """The declared tests as the channel reports them, in the declared order; a test with
    no line did not end (the run stopped in or before it, or its class failed)."""
    ended = {t.name: t for t in channel.tests}
    around = "\n".join(c.failure for c in channel.containers).strip()
    results = []
    for name in declared:
        test = ended.get(name)
        if test is not None and test.outcome in _PASSING:
            results.append(TestCaseResult(name=name, status=Status.passed, output=test.output or None))
            continue
        why = (test.failure or test.outcome) if test is not None else (around or "did not run: the run ended before it")
        results.append(TestCaseResult(name=name, status=Status.failed, message=why.strip()[:_MESSAGE_CAP],
                                      output=(test.output or None) if test is not None else None))
    return results
