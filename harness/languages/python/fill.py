"""Filling expected values by execution, Python's way (`Language.fill_placeholders`; what fill
mode is: testwriting/fill.py). The written pytest suite, with its placeholders rewritten to
calls of the recorder (placeholders.py), runs once in the sandbox on the correct solution;
each placeholder reached is then replaced by a Python literal of the value the other side
of its `==` had there:

    assert classify(12) == FILL          ->   assert classify(12) == "perfect"
    self.assertEqual(FILL, words("a b")) ->   self.assertEqual(["a", "b"], words("a b"))

The suite is the model's and hostile, so it runs as the sandbox's runner alone, with the
solution's modules beside it (the correct solution is the task's own: no proxy is needed
between them), and what it recorded is read back only once every process of it has
ended (sandbox/capture.py), then parsed with the proxy codec's bounds. Nothing in the
suite's process decides what is filled in: a record the recorder never writes makes every
placeholder unfilled, and one it could write (the suite may call the recorder itself) can
only fill the suite's own placeholders wrongly. A placeholder never reached, reached with
different values, or whose value has no literal that evaluates equal to it (only None,
bool, int, float, str, bytes, range, tuple, list, dict, set and frozenset have one, and no
NaN, which equals nothing) is left in place with the reason in a comment line above its
statement; reached, it raises NameError, which the model sees after the round."""

from __future__ import annotations

import math
import os
import re
import shlex
import time
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator, Mapping

from ...errors import SandboxUnavailable
from ...sandbox.base import Role, SandboxSession
from ...sandbox.capture import Kept, capture
from ...staging import signal_name, stage_files
from ...task import Task
from ..language import FilledSuite, FilledValue, FillReport, Unfilled
from .placeholders import PLACEHOLDER, Suite, read_suite, recording_suite, written_back
from .proxy import codec
from .proxy.install import PACKAGE

_ROOT = "python-fill"            # under the session's sources and build root
_RUNTIME = ("codec.py", "record.py")
_RECORDS = Kept("records", 4 << 20)
_OUTPUT = Kept("output", 64 << 10)
_LITERAL = 1 << 16               # characters of one value written back
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_.]{0,255}\Z")
# pytest's short summary line of a test that did not pass (-rfE).
_SUMMARY = re.compile(r"^(?:FAILED|ERROR) (\S+)(?: - (.*))?$", re.M)


@dataclass(frozen=True)
class Opaque:
    """A value the recorder named by its type alone: one the codec does not carry."""

    name: str


class NoLiteral(Exception):
    """Why a value cannot be written back."""


# --- values as literals ------------------------------------------------------------------


def literal(value: Any, *, canonical: bool = False) -> str:
    """Python source whose evaluation equals `value`; NoLiteral where there is none. The
    canonical form (dicts by key too; NaN and opaque values as markers, never refused)
    tells two values apart the way equality would."""
    kind = type(value)
    if value is None or kind in (bool, int, str, bytes):
        return repr(value)
    if kind is float:
        if math.isnan(value):
            if canonical:
                return "<nan>"
            raise NoLiteral("it is NaN, which equals nothing, not even itself: assert math.isnan(...)")
        return repr(value) if math.isfinite(value) else f'float("{"inf" if value > 0 else "-inf"}")'
    if kind is range:
        return f"range({value.start}, {value.stop}, {value.step})"
    if kind is Opaque:
        if canonical:
            return f"<{value.name}>"
        raise NoLiteral(f"it is a {value.name}, which has no literal: write it yourself")
    if kind in (list, tuple):
        items = [literal(v, canonical=canonical) for v in value]
        if kind is list:
            return "[" + ", ".join(items) + "]"
        return "(" + items[0] + ",)" if len(items) == 1 else "(" + ", ".join(items) + ")"
    if kind is dict:
        pairs = [f"{literal(k, canonical=canonical)}: {literal(v, canonical=canonical)}" for k, v in value.items()]
        return "{" + ", ".join(sorted(pairs) if canonical else pairs) + "}"
    if kind in (set, frozenset):
        members = sorted(literal(v, canonical=canonical) for v in value)
        inside = "{" + ", ".join(members) + "}" if members else ""
        return (inside or "set()") if kind is set else f"frozenset({inside})"
    raise NoLiteral(f"it is a {kind.__name__}, which has no literal: write it yourself")


# --- what the run recorded ---------------------------------------------------------------


def _resolve(tag: str, item: list) -> Opaque:
    if tag == "h" and len(item) == 3 and item[1] == 0 and type(item[2]) is str and _NAME.match(item[2]):
        return Opaque(item[2])
    raise codec.Malformed(f"a value of tag {tag!r} the recorder never writes")


def read_records(data: bytes, truncated: bool, sites: int) -> tuple[dict[int, list[Any]], str | None]:
    """The values recorded for each site; or none, and why the records are not the
    recorder's (a line it never writes, or more than the bound)."""
    if truncated:
        return {}, f"more than {_RECORDS.keep} bytes of records"
    lines = data.split(b"\n")
    if lines[-1]:
        return {}, "the records end in the middle of a line"
    out: dict[int, list[Any]] = {}
    for n, line in enumerate(lines[:-1], 1):
        try:
            record = codec.parse(line)
            if type(record) is not dict or set(record) != {"site", "value"}:
                raise codec.Malformed("not a record of the recorder's")
            site = record["site"]
            if type(site) is not int or not 0 <= site < sites:
                raise codec.Malformed(f"a site the suite does not have ({str(site)[:20]})")
            value = codec.Decoder(_resolve).decode(record["value"])
        except codec.Malformed as exc:
            return {}, f"record {n}: {exc}"
        out.setdefault(site, []).append(value)
    return out, None


def _value(values: list[Any]) -> tuple[str | None, str | None]:
    """(the literal that fills a site, None) or (None, why not)."""
    if len({literal(v, canonical=True) for v in values}) > 1:
        return None, f"reached {len(values)} times with different values: one placeholder, one value"
    try:
        text = literal(values[0])
    except NoLiteral as exc:
        return None, f"the correct solution's value cannot be written back: {exc}"
    if len(text) > _LITERAL:
        return None, f"the correct solution's value is {len(text)} characters long as a literal (at most {_LITERAL})"
    return text, None


# --- the run -----------------------------------------------------------------------------


@dataclass
class Ran:
    status: str                 # FillReport.probe
    reason: str | None = None   # why the run gives nothing, or ended early
    records: bytes = b""
    truncated: bool = False
    output: str = ""


def _runtime() -> dict[str, bytes]:
    here = Path(codec.__file__).parent
    files = {f"runtime/{PACKAGE}/{name}": (here / name).read_bytes() for name in _RUNTIME}
    files[f"runtime/{PACKAGE}/__init__.py"] = b'"""The harness\'s fill recorder (harness/languages/python/proxy/record.py)."""\n'
    return files


@contextmanager
def laid_out_for_runner(session: SandboxSession, where: str, files: Mapping[str, bytes], what: str) -> Iterator[str]:
    """`files` staged and laid out in the build space where the runner reads them (the path,
    quoted for the shell), and removed when the block ends: known code (the correct
    solution, its mutants) that a runner's program of the harness's runs beside."""
    top = where.split("/")[0]
    session.stage(where, dict(files))
    os.chmod(session.staging / top, 0o755)  # the folder above the staged one: the builder passes it
    q = shlex.quote
    src, root = q(f"{session.src_root}/{where}"), q(f"{session.build_root}/{where}")
    laid = session.exec(["sh", "-c", f"rm -rf {root} && mkdir -p {root} && cp -R {src}/. {root}/ && chmod -R go+rX {root} "
                         f"&& chmod go+x {q(session.build_root)}/{q(top)}"], role=Role.builder, timeout_s=60)
    if laid.exit_code != 0:  # the task's files are staged: the build space failed (full, gone)
        raise SandboxUnavailable(f"{what} could not be laid out: {laid.output.decode(errors='replace').strip()[:300]}")
    try:
        yield root
    finally:
        session.exec(["rm", "-rf", f"{session.build_root}/{where}"], role=Role.builder, timeout_s=60)


def run_recording(task: Task, test_file: str, suite: str, session: SandboxSession) -> Ran:
    """A recording suite (one that calls the recorder, proxy/record.py) run once, as the
    runner, on the correct solution."""
    staged, _ = stage_files(task, task.reference_files())
    staged[test_file] = suite.encode("utf-8", "surrogateescape")
    files = {**{f"tests/{rel}": data for rel, data in staged.items()}, **_runtime()}
    with laid_out_for_runner(session, f"{_ROOT}/{task.exercise}", files, f"the fill run of {task.slug}") as root:
        scratch = shlex.quote(session.scratch_root)
        env = (f"env -i PATH=/usr/bin:/bin PYTHONPATH={root}/runtime PYTHONDONTWRITEBYTECODE=1 "
               f"PYTEST_DISABLE_PLUGIN_AUTOLOAD=1 HOME=/nonexistent LANG=C.UTF-8 "
               f"HARNESS_FILL_RECORDS={scratch}/{_RECORDS.name}")
        run = (f"(cd {root}/tests && {env} python3 -m pytest -p no:cacheprovider -q -rfE {shlex.quote(test_file)} "
               f">{scratch}/{_OUTPUT.name} 2>&1 </dev/null); code=$?")
        ran, got = capture(session, run, (_RECORDS, _OUTPUT), session.limits.timeout_s)
    if ran.timed_out:
        return Ran("timeout", f"it timed out after {session.limits.timeout_s:g} s and was killed")
    if got is None:
        return Ran("incomplete", "what it wrote could not be read back (it flooded its output)")
    out = Ran("ok", records=got.contents[0], truncated=got.truncated(0), output=got.contents[1].decode(errors="replace"))
    code = got.exit_code
    sig = signal_name(code) if code is not None else None
    if sig is not None:
        out.status, out.reason = "crash", f"it was killed by {sig}"
    elif code == 1:
        out.status = "failed"
    elif code != 0:
        out.status, out.reason = "error", f"pytest exited with code {code}: {_last_error(out.output)}"
    return out


def _last_error(output: str) -> str:
    errors = [ln[1:].strip() for ln in output.splitlines() if ln.startswith("E ")]
    lines = errors or [ln.strip() for ln in output.splitlines() if ln.strip()] or ["no output"]
    return lines[-1][:300]


def _unreached(test: str | None, ran: Ran) -> str:
    if ran.status in ("timeout", "incomplete"):
        return f"the run on the correct solution gave nothing back: {ran.reason}"
    why = "never reached when the suite ran on the correct solution"
    if ran.status not in ("ok", "failed"):
        return f"{why}: the run ended early ({ran.reason})"
    for node, message in _SUMMARY.findall(ran.output):
        name = node.rsplit("::", 1)[-1]
        if test is not None and (name == test or name.startswith(test + "[")):
            return f"{why}; its test {node} did not pass" + (f": {message.strip()[:200]}" if message else "")
    return why


def _decide(suite: Suite, ran: Ran) -> tuple[dict[int, str], dict[int, str]]:
    """(literal by placeholder, why not by placeholder)."""
    records, forged = read_records(ran.records, ran.truncated, len(suite.placeholders))
    if forged is not None:
        ran.status, ran.reason = "forged", forged
    values: dict[int, str] = {}
    unfilled: dict[int, str] = {}
    for i, p in enumerate(suite.placeholders):
        if p.why is not None:
            unfilled[i] = p.why
        elif forged is not None:
            unfilled[i] = f"what the run on the correct solution recorded is not the recorder's ({forged})"
        elif i not in records:
            unfilled[i] = _unreached(p.test, ran)
        else:
            text, why = _value(records[i])
            if text is not None:
                values[i] = text
            else:
                assert why is not None  # _value says why whenever it fills nothing
                unfilled[i] = why
    return values, unfilled


def fill_placeholders(task: Task, test_file: str, source: bytes, session: SandboxSession) -> FilledSuite:
    """`source` with every placeholder that can be filled replaced by the correct
    solution's value, and a report; a suite without placeholders comes back unchanged."""
    start = time.monotonic()
    text = source.decode("utf-8", "surrogateescape")
    try:
        suite = read_suite(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:
        lines = [n for n, row in enumerate(text.split("\n"), 1) for _ in re.finditer(rf"\b{PLACEHOLDER}\b", row)]
        why = f"the suite does not parse ({type(exc).__name__}: {getattr(exc, 'msg', exc)})"
        report = FillReport(placeholders=len(lines), unfilled=[Unfilled(line=n, why=why) for n in lines],
                            probe="syntax_error" if lines else None)
        return FilledSuite(source, report)
    report = FillReport(placeholders=len(suite.placeholders))
    if not suite.placeholders:
        return FilledSuite(source, report)
    ran = run_recording(task, test_file, recording_suite(suite), session)
    values, unfilled = _decide(suite, ran)
    report.probe = ran.status
    report.filled = len(values)
    report.values = [FilledValue(at=suite.placeholders[i].span[0], text=text) for i, text in sorted(values.items())]
    report.unfilled = [Unfilled(line=suite.placeholders[i].line, why=why) for i, why in sorted(unfilled.items())]
    report.seconds = round(time.monotonic() - start, 3)
    return FilledSuite(written_back(suite, values, unfilled).encode("utf-8", "surrogateescape"), report)
