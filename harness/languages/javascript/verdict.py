"""What a JavaScript round's Jest run reports, read with bounds: the harness's reporter's
record (assets/reporter.js), each declared test's outcome from it, and the console as
Aider's benchmark shows it to a model."""

from __future__ import annotations

import json
import re
import secrets
from dataclasses import dataclass, field

from ...records import Status, TestCaseResult

MAX_TESTS = 10_000
_MESSAGE_CAP = 4000
_TIMING = re.compile(r"\bin \d+\.\d+s\b")  # what Aider's cleanup_test_output removes
_STATUSES = {"passed": Status.passed, "failed": Status.failed, "pending": Status.passed, "skipped": Status.passed,
             "todo": Status.passed, "disabled": Status.passed}


def fresh_token() -> str:
    return secrets.token_hex(16)


@dataclass
class Record:
    """The reporter's record: each test's status and messages by full name, the test files'
    errors, Jest's own word on the run, and why it could not be read (None when it could)."""

    outcomes: dict[str, tuple[str, str]] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)
    success: bool = False
    unreadable: str | None = None


def read_record(data: bytes, token: str) -> Record:
    record = Record()
    try:
        raw = json.loads(data)
    except ValueError:
        record.unreadable = "no record of the harness's reporter" if not data else "a record that is not JSON"
        return record
    if not isinstance(raw, dict) or raw.get("token") != token:
        record.unreadable = "a record without this round's token"
        return record
    tests, errors = raw.get("tests"), raw.get("errors")
    if not isinstance(tests, list) or not isinstance(errors, list) or len(tests) > MAX_TESTS:
        record.unreadable = "a record of an unknown shape"
        return record
    for t in tests:
        if not (isinstance(t, dict) and isinstance(t.get("name"), str) and t.get("status") in _STATUSES
                and isinstance(t.get("messages"), list) and all(isinstance(m, str) for m in t["messages"])):
            record.unreadable = "a test of an unknown shape"
            return record
        if t["name"] in record.outcomes:  # a name twice: the worse outcome stands
            if record.outcomes[t["name"]][0] == "failed":
                continue
        record.outcomes[t["name"]] = (t["status"], "\n".join(t["messages"]))
    record.errors = [e[:_MESSAGE_CAP] for e in errors if isinstance(e, str)]
    record.success = raw.get("success") is True
    return record


def tests_of(record: Record, declared: list[str]) -> list[TestCaseResult]:
    """The declared tests as the record reports them, in the declared order; a test the
    record does not name did not run."""
    results = []
    for name in declared:
        outcome = record.outcomes.get(name)
        status = _STATUSES[outcome[0]] if outcome is not None else Status.failed
        message = None
        if status is not Status.passed:
            message = (outcome[1].strip()[:_MESSAGE_CAP] or None) if outcome is not None else (
                record.errors[0] if record.errors else "did not run: the run ended before it")
        results.append(TestCaseResult(name=name, status=status, message=message))
    return results


def judged(record: Record, exit_code: int | None, declared: list[str]) -> tuple[Status, list[str], str | None]:
    """The run's status, the forgery found (one reason each) and, for a run that broke down
    as a whole, why."""
    forgery = []
    if exit_code == 0 and record.unreadable is not None:
        forgery.append(f"verdict: Jest exited 0 with {record.unreadable}")
    if record.unreadable is None and record.success and exit_code not in (0, None):
        forgery.append(f"verdict: the record says every test passed, Jest exited {exit_code}")
    if forgery:
        return Status.failed, forgery, None
    if record.unreadable is not None:
        return Status.error, [], f"the test run left {record.unreadable} (exit code {exit_code})"
    if record.errors and not record.outcomes:
        return Status.error, [], record.errors[0]
    failed = [name for name in declared if record.outcomes.get(name, ("failed",))[0] == "failed"]
    if exit_code == 0 and record.success and not failed and not record.errors:
        return Status.passed, [], None
    return Status.failed, [], None


def clean_console(text: str, folder: str, slug: str) -> str:
    """The console as Aider's benchmark sends it to a model: timings `in N.NNs` gone, the
    exercise's folder named by its name (cleanup_test_output)."""
    return _TIMING.sub("", text.replace(folder, slug))
