"""Deciding what a Rust test run says, in the harness's process.

Each test binary (the crate's own unit tests, then one per `tests/*.rs`, as cargo runs them)
holds the candidate's code, so its standard output, libtest's JSON events, is read as what
an honest binary could print and lends a report its per-test details and the console
transcript, never its verdict. The verdict is libtest's log file (`--logfile`: a line
`ok <name>` or `failed <name>` per test, written to a file that the binary opens before any
test runs and that a candidate passed by the screen cannot name nor write: screen.py) and
each binary's exit status, read by the runner's shell. A run passes only when:

- every binary exited 0, and each log names each of the file's declared tests `ok`, the
  lib's own unit tests, if any, `ok` too;
- no event says that a test the log calls `ok` failed.

A log with an `ok` line where the binary failed, a binary that exited 0 with a log that
misses a declared test or names one failed, or an event that contradicts a passing log is
what no honest run produces: forged. A binary killed by a signal (a stack overflow, memory,
the time limit) before its log is whole is an honest failure of the tests it left."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ...records import Status, TestCaseResult
from ..json_lines import json_objects

_MESSAGE_CAP = 4000
_NOTE = "note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace"
_LOG_LINE = re.compile(r"(ok|failed|ignored) (\S[^\n]{0,1000})")


@dataclass
class Binary:
    """One test binary's run as the harness read it back."""

    target: str                    # `lib`, or a tests/*.rs file's stem
    exit_code: int | None
    log: dict[str, str] = field(default_factory=dict)
    log_unreadable: bool = False
    outcomes: dict[str, str] = field(default_factory=dict)      # the events' final word per test
    output: dict[str, str] = field(default_factory=dict)        # a failed test's captured output
    counts: dict[str, int] | None = None                        # the suite's closing event
    events_unreadable: str | None = None


def read_log(data: bytes) -> tuple[dict[str, str], bool]:
    """The log's outcome per test, and whether a line of it is not libtest's."""
    found: dict[str, str] = {}
    for raw in data.decode("utf-8", "replace").splitlines():
        m = _LOG_LINE.fullmatch(raw)
        if m is None:
            return found, True
        found[m.group(2)] = m.group(1)
    return found, False


def read_events(binary: Binary, data: bytes) -> None:
    found, binary.events_unreadable = json_objects(data, "a libtest event")
    for event in found:
        kind, what, name = event.get("type"), event.get("event"), event.get("name")
        if kind == "test" and isinstance(name, str) and what in ("ok", "failed", "ignored"):
            binary.outcomes[name] = what
            stdout = event.get("stdout")
            if isinstance(stdout, str):
                binary.output[name] = stdout[:_MESSAGE_CAP * 4]
        elif kind == "suite" and what in ("ok", "failed"):
            counts = {k: event[k] for k in ("passed", "failed", "ignored", "filtered_out")
                      if isinstance(event.get(k), int)}
            binary.counts = counts if len(counts) == 4 else None


def tests_of(binaries: list[Binary], declared: dict[str, list[str]]) -> list[TestCaseResult]:
    """The declared tests as the logs report them, in the files' order; a test the log does
    not name did not end (its binary stopped in or before it)."""
    by_target = {b.target: b for b in binaries}
    results = []
    for target, names in declared.items():
        binary = by_target.get(target)
        for name in names:
            outcome = binary.log.get(name) if binary else None
            status = Status.passed if outcome == "ok" else Status.failed
            message = printed = None
            if status is not Status.passed:
                printed, message = _split(binary.output.get(name, "") if binary else "")
                message = message or ("did not run: the run ended before it" if outcome is None else "failed")
            results.append(TestCaseResult(name=name, status=status, message=message, output=printed))
    return results


def _split(text: str) -> tuple[str | None, str]:
    """A failed test's captured output as Exercism's Rust runner splits it: what the test
    printed before its panic, and the panic's message without the backtrace note."""
    printed, panic = None, text
    if "\nthread '" in text and not text.startswith("thread '"):
        printed, rest = text.split("\nthread '", 1)
        panic = "thread '" + rest
    panic = panic.strip().removesuffix(_NOTE).strip()
    return printed, panic[:_MESSAGE_CAP]


def judged(binaries: list[Binary], declared: dict[str, list[str]]) -> tuple[Status, list[str], str | None]:
    """The run's status, the forgery found (one reason each) and, for a run that broke down
    as a whole, why."""
    forgery: list[str] = []
    ran = {b.target: b for b in binaries}
    for b in binaries:
        wanted = declared.get(b.target, [])
        if b.exit_code == 0 and (b.log_unreadable or any(b.log.get(n) != "ok" for n in wanted)
                                 or any(v != "ok" for v in b.log.values())):
            forgery.append(f"{b.target}: the binary exited 0 with a log that is not all its tests passing")
        if b.exit_code == 0 and any(b.outcomes.get(n) == "failed" for n in b.log if b.log.get(n) == "ok"):
            forgery.append(f"{b.target}: an event says a test failed that the log says passed")
    if forgery:
        return Status.failed, forgery, None
    missing = [t for t in declared if t not in ran]
    if missing:
        return Status.error, [], f"the run ended before the tests of {', '.join(missing)}"
    if all(b.exit_code == 0 for b in binaries):
        return Status.passed, [], None
    if not any(b.log for b in binaries):
        codes = ", ".join(f"{b.target} {b.exit_code}" for b in binaries)
        return Status.error, [], f"no test ended (exit codes: {codes})"
    return Status.failed, [], None
