"""Deciding what a Go test run says, in the harness's process.

The test binary holds the candidate's code, so its output (the `-test.v=test2json` stream
that test2json turns into events) is the candidate's to write: events lend a report its
per-test details and the console transcript, never its verdict. The verdict is the exit
code of `testing.M.Run`, written by the harness's own TestMain (assets/verdict_test.go) to
descriptor 3 with a fresh token from the environment, both out of reach of a candidate
the screen passed (screen.py). A run passes only when:

- the channel holds exactly `verdict <token> 0`, and the process exited with status 0;
- the events name every test function the task's test files declare, each passed.

An exit status 0 without the channel's record, a record whose code differs from the exit
status, or a passing record beside a failing event, is what no honest program produces
(it cannot end the process itself, nor print test2json's framing byte): forged. A run with
no record and a failing status (a panic, a timeout) is an honest failure."""

from __future__ import annotations

import re
import secrets
from dataclasses import dataclass, field
from typing import Iterable

from ...records import Status, TestCaseResult
from ..json_lines import json_objects

MAX_SUBTESTS = 5_000
MAX_NAME = 1_000
_MESSAGE_CAP = 4000


def fresh_token() -> str:
    return secrets.token_hex(16)


def read_record(data: bytes, token: str) -> int | None:
    """The channel's exit code, or None when it holds no record of this run's."""
    m = re.fullmatch(rb"verdict ([0-9a-f]{32}) (\d{1,3})\n", data)
    if m is None or m.group(1).decode() != token:
        return None
    return int(m.group(2))


@dataclass
class Events:
    """What the test2json stream says, read with bounds: each top-level test's outcome and
    its (and its subtests') output, every output line in order, and each subtest (at most
    MAX_SUBTESTS, names of at most MAX_NAME characters) in the order it started, with its
    outcome and its own output."""

    outcomes: dict[str, str] = field(default_factory=dict)
    output: dict[str, list[str]] = field(default_factory=dict)
    lines: list[tuple[str | None, str]] = field(default_factory=list)
    unreadable: str | None = None
    subtests: list[str] = field(default_factory=list)
    sub_outcomes: dict[str, str] = field(default_factory=dict)
    own_output: dict[str, list[str]] = field(default_factory=dict)


def read_events(data: bytes) -> Events:
    events = Events()
    started: set[str] = set()
    found, events.unreadable = json_objects(data, "a test2json event")
    for event in found:
        action, test, text = event.get("Action"), event.get("Test"), event.get("Output")
        top = test.split("/", 1)[0] if isinstance(test, str) else None
        sub = isinstance(test, str) and test != top and len(test) <= MAX_NAME
        if action == "output" and isinstance(text, str):
            events.lines.append((test if isinstance(test, str) else None, text))
            if top is not None:
                events.output.setdefault(top, []).append(text)
                events.own_output.setdefault(str(test), []).append(text)
        elif action == "run" and sub and test not in started and len(events.subtests) < MAX_SUBTESTS:
            started.add(str(test))
            events.subtests.append(str(test))
        elif action in ("pass", "fail", "skip") and top is not None and top == test:
            events.outcomes[top] = action
        elif action in ("pass", "fail", "skip") and sub:
            events.sub_outcomes[str(test)] = action
    return events


def tests_of(events: Events, declared: list[str]) -> list[TestCaseResult]:
    """The declared tests as the events report them, in the declared order, as Exercism's Go
    runner lists them: a test that ran subtests as its subtests (any depth), in the order
    they started, unless it failed where none of them did (its own failure is then kept);
    a test with no outcome did not end (the run stopped in or before it). The subtests'
    names are the stream's, which the candidate's process writes: they lend the report its
    details, never its verdict (judged)."""
    results = []
    for name in declared:
        subs = [t for t in events.subtests if t.startswith(name + "/")]
        parts = [_result(t, events.sub_outcomes.get(t), events.own_output.get(t, ())) for t in subs]
        whole = _result(name, events.outcomes.get(name), events.output.get(name, ()))
        if not parts or (whole.status is Status.failed and all(p.status is Status.passed for p in parts)):
            results.append(whole)
        else:
            results.extend(parts)
    return results


def _result(name: str, outcome: str | None, lines: Iterable[str]) -> TestCaseResult:
    status = Status.passed if outcome in ("pass", "skip") else Status.failed
    output = "".join(line for line in lines if not _framing(line))
    message = None if status is Status.passed else (output.strip()[:_MESSAGE_CAP] or (
        "did not run: the run ended before it" if outcome is None else None))
    return TestCaseResult(name=name, status=status, message=message)


def _framing(line: str) -> bool:
    return line.lstrip().startswith(("=== RUN", "=== PAUSE", "=== CONT", "=== NAME", "--- PASS", "--- SKIP", "--- FAIL"))


def console(events: Events, package: str, code: int | None) -> str:
    """The run as plain `go test` prints it (what Aider's benchmark shows a model), made
    from the verbose run's events: what the program printed, where it printed it; each
    top-level test that did not pass, when it ended, as its `--- FAIL` line with its log
    lines under it and then its subtests', each indented by its depth as the quiet mode
    indents them; then the package's result and `go test ./...`'s own (without their timing: a round's
    transcript is the same for the same program)."""
    logs: dict[str, list[str]] = {}
    header: dict[str, str] = {}
    order: list[str] = []
    out: list[str] = []
    ended: str | None = None  # a top-level test whose subtests' result lines follow its own
    for test, line in events.lines:
        stripped = line.lstrip()
        if ended is not None and not (test is not None and test.startswith(ended + "/") and stripped.startswith("--- ")):
            out.extend(_failure_block(ended, order, header, logs))
            ended = None
        if test is None:
            out.append(line)  # the binary's own last line (PASS, FAIL) among them
            continue
        if test not in logs:
            order.append(test)
            logs[test] = []
        if stripped.startswith("--- "):
            header[test] = stripped
            if "/" not in test:  # a top-level test ended: quiet mode prints its failure now
                ended = test
        elif line.startswith("    "):  # the testing package's log lines are indented
            logs[test].append(line[4:])
        elif not _framing(line):
            out.append(line)
    if ended is not None:
        out.extend(_failure_block(ended, order, header, logs))
    for test in order:  # a test that never ended (the run stopped in it)
        if "/" not in test and test not in header:
            header[test] = f"--- FAIL: {test} (did not end)\n"
            out.extend(_failure_block(test, order, header, logs))
    out.append(f"FAIL\t{package}\nFAIL\n" if code != 0 else f"ok  \t{package}\n")
    return "".join(out)


def _failure_block(top: str, order: list[str], header: dict[str, str], logs: dict[str, list[str]]) -> list[str]:
    block: list[str] = []
    if not header[top].startswith("--- FAIL"):
        return block
    for test in [top] + [t for t in order if t.startswith(top + "/")]:
        mark = header.get(test, f"--- FAIL: {test} (did not end)\n")
        if not mark.startswith("--- FAIL"):
            continue
        indent = "    " * test.count("/")
        block.append(indent + mark)
        block.extend(indent + "    " + line for line in logs.get(test, ()))
    return block


def judged(events: Events, record: int | None, exit_code: int | None, declared: list[str]) -> tuple[Status, list[str], str | None]:
    """The run's status, the forgery found (one reason each) and, for a run that broke
    down as a whole, why."""
    forgery = []
    if exit_code == 0 and record is None:
        forgery.append("verdict channel: the test binary exited 0 without the harness's record")
    if record is not None and exit_code is not None and record != exit_code:
        forgery.append(f"verdict channel: the record says {record}, the process exited {exit_code}")
    if record == 0 and any(events.outcomes.get(name) == "fail" for name in declared):
        forgery.append("test events: a test failed in a run whose tests all passed")
    if forgery:
        return Status.failed, forgery, None
    if record == 0 and exit_code == 0:
        missing = [name for name in declared if name not in events.outcomes]
        if missing:
            return Status.error, [], f"the events name no outcome for {', '.join(missing[:5])}"
        return Status.passed, [], None
    if not events.outcomes and events.unreadable is None:
        return Status.error, [], f"no test ended (exit code {exit_code})"
    return Status.failed, [], None
