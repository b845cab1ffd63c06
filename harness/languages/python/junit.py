"""pytest's junit XML as the round's test cases (testrun.py): each named by its pytest node
id, tagged with its Exercism task, its message capped."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import PurePosixPath
from typing import Mapping

from ...records import Status, TestCaseResult
from .cases import PytestCase

_MESSAGE_CAP = 8000


def parse_junit(xml: bytes, declared: Mapping[str, PytestCase]) -> tuple[list[TestCaseResult], str | None]:
    """The test cases of pytest's junit XML, named by node id; (cases, why it cannot be read)."""
    if not xml.strip():
        return [], "pytest wrote no report"
    try:
        root = ET.fromstring(xml)
    except ET.ParseError as exc:
        return [], f"pytest's report does not parse ({exc})"
    files = {PurePosixPath(c.split("::")[0]).with_suffix("").as_posix().replace("/", "."): c.split("::")[0]
             for c in declared}
    cases = []
    for case in root.iter("testcase"):
        name = _node_id(case.get("classname", ""), case.get("name", ""), files)
        status, message = Status.passed, None
        for child in case:
            if child.tag in ("failure", "error", "skipped"):
                status = Status.error if child.tag == "error" else Status.failed
                message = (child.get("message") or "") + ("\n" + child.text if child.text else "")
                message = message.strip()[:_MESSAGE_CAP] or child.tag
                break
        out = "".join(c.text or "" for c in case if c.tag in ("system-out", "system-err")).strip()
        task_id = declared[name].task_id if name in declared else None
        tags = [f"task_{task_id}"] if task_id is not None else []
        cases.append(TestCaseResult(name=name, status=status, message=message, output=out[:_MESSAGE_CAP] or None,
                                    tags=tags))
    return cases, None


def _node_id(classname: str, name: str, files: Mapping[str, str]) -> str:
    """pytest's node id from junit's classname (`module.Class`) and name."""
    for module, file in files.items():
        if classname == module or classname.startswith(module + "."):
            rest = classname[len(module) + 1:]
            return "::".join([file, *([rest.replace(".", "::")] if rest else []), name])
    return f"{classname}::{name}" if classname else name
