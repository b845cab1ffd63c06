"""Reading Catch2 v2's XML reporter output, which may be cut short: a crash or a kill
leaves a prefix, and every test case that finished in that prefix still counts."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from dataclasses import dataclass, field

from ...records import AssertionCount, Status, TestCaseResult

_TAG = re.compile(r"\[([^\]]+)\]")


def tag_names(spec: str) -> list[str]:
    """The tags of a Catch2 tag string: `[task_1][slow]` -> task_1, slow."""
    return _TAG.findall(spec)


@dataclass
class CatchRun:
    cases: list[TestCaseResult] = field(default_factory=list)
    complete: bool = False      # the closing </Catch> arrived
    unreadable: str | None = None  # why parsing stopped early, if it did
    # The run's assertion totals (Catch2 counts passing assertions even when the reporter
    # does not list them), from the report's last lines: None for a report cut short.
    assertions: AssertionCount | None = None


def _text(elem: ET.Element | None) -> str:
    return (elem.text or "").strip() if elem is not None else ""


def _failure_lines(case: ET.Element) -> list[str]:
    lines = []
    for el in case.iter():
        where = f"{el.get('filename', '?').rsplit('/', 1)[-1]}:{el.get('line', '?')}"
        if el.tag == "Expression" and el.get("success") == "false":
            text = f"{where}: {el.get('type', 'CHECK')}( {_text(el.find('Original'))} )"
            expanded = _text(el.find("Expanded"))
            if expanded and expanded != _text(el.find("Original")):
                text += f"\nwith expansion:\n  {expanded}"
            for sub in el.findall("Exception"):
                text += f"\ndue to unexpected exception: {_text(sub)}"
            lines.append(text)
        elif el.tag == "Exception" and el not in _nested_exceptions(case):
            lines.append(f"{where}: unexpected exception: {_text(el)}")
        elif el.tag == "FatalErrorCondition":
            lines.append(f"{where}: fatal error condition: {_text(el)}")
        elif el.tag == "Failure":
            lines.append(f"{where}: explicit failure: {_text(el)}")
    return lines


def _nested_exceptions(case: ET.Element) -> set[ET.Element]:
    return {sub for expr in case.iter("Expression") for sub in expr.findall("Exception")}


def _case_result(case: ET.Element) -> TestCaseResult:
    overall = case.find("OverallResult")
    passed = overall is not None and overall.get("success") == "true"
    output = ""
    if overall is not None:
        output = "\n".join(t for t in (_text(overall.find("StdOut")), _text(overall.find("StdErr"))) if t)
    message = "\n".join(_failure_lines(case)) if not passed else None
    return TestCaseResult(
        name=case.get("name", "?"),
        status=Status.passed if passed else Status.failed,
        tags=tag_names(case.get("tags", "")),
        message=message or (None if passed else "failed"),
        output=output or None,
    )


def _totals(elem: ET.Element) -> AssertionCount | None:
    try:
        return AssertionCount(passed=int(elem.get("successes", "")), failed=int(elem.get("failures", "")))
    except ValueError:
        return None


def _read_events(parser: ET.XMLPullParser[ET.Element]) -> Iterator[tuple[str, ET.Element]]:
    """The events read so far. The parser is asked for start and end events only, each of
    which carries its element; typeshed's read_events also types the namespace and comment
    events it never yields here."""
    for event in parser.read_events():
        if len(event) == 2 and isinstance(event[1], ET.Element):
            yield event[0], event[1]


def parse_catch2_xml(data: bytes) -> CatchRun:
    run = CatchRun()
    if not data.strip():
        run.unreadable = "no output from the test binary's reporter"
        return run
    parser: ET.XMLPullParser[ET.Element] = ET.XMLPullParser(events=("start", "end"))
    depth = 0  # inside a TestCase: its sections' OverallResults are not the run's totals
    try:
        parser.feed(data)
        for event, elem in _read_events(parser):
            if elem.tag == "TestCase":
                depth += 1 if event == "start" else -1
            if event == "start":
                continue
            if elem.tag == "TestCase":
                run.cases.append(_case_result(elem))
                elem.clear()
            elif elem.tag == "OverallResults" and not depth:
                run.assertions = _totals(elem)  # the Group's, then the same again for Catch
            elif elem.tag == "Catch":
                run.complete = True
        parser.close()
    except ET.ParseError as exc:
        if not run.complete:
            run.unreadable = f"reporter output cut short or malformed ({exc})"
        # Events read before the error are already in run.cases.
        try:
            for event, elem in _read_events(parser):
                if event == "end" and elem.tag == "TestCase":
                    run.cases.append(_case_result(elem))
        except ET.ParseError:
            pass
    return run
