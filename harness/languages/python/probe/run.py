"""Running Python's probe in a sandbox session: a round laid out as a test round is
(testrun.proxied_round: the candidate's modules in servers of their own as the runner, the
builder's process importing their proxies), with the harness's driver (runtime.py) in
pytest's place; or, for a task's own test cases as calls, the test round itself."""

from __future__ import annotations

import json
from dataclasses import replace
from functools import lru_cache
from typing import Any, Mapping, Sequence

from ....errors import BadInput
from ....fs import read_files
from ....hashing import hash_files
from ....paths import package_file
from ....probe import schema
from ....probe.result import ProbeRun
from ....probe.stream import CaseStream, ProbeStream, read_stream
from ....records import Status, TestReport
from ....sandbox.base import ExecResult, Role, SandboxSession
from ....sandbox.capture import Captured, Kept
from ....staging import stage_files
from ....task import Task
from ...language import CallProbe
from ..cases import case_texts
from ..proxy.install import verdict_of
from ..testrun import drop_build, out_folder, proxied_modules, proxied_round, run_tests
from .calls import check_prelude, default_prelude, parse_call

# The driver and its config, laid out among the task's files in the tests' folder (the
# builder's alone): names of the harness's, taken over whatever a workspace calls so.
_DRIVER = "_harness_probe.py"
_CONFIG = "_harness_probe.json"
_KEPT = [Kept("stream", 4 * 1024 * 1024), Kept("status", 4096), Kept("verdict", 4096), Kept("console", 16 * 1024)]
_OUTPUT_KEEP = 16 * 1024  # the candidate's own output, for people
# The schema's bounds, which the driver keeps to (it cuts a value over them to its digest).
BOUNDS = {"string": schema.MAX_STRING, "depth": schema.MAX_DEPTH, "record": schema.MAX_RECORD,
           "int_digits": schema.MAX_INT_DIGITS}


@lru_cache(maxsize=1)
def _runtime() -> dict[str, bytes]:
    """What the values depend on besides the calls: the driver and the proxy's runtime (files
    of the installed package, read once)."""
    return {"runtime.py": package_file("languages", "python", "probe", "runtime.py").read_bytes(),
            **{f"proxy/{k}": v for k, v in read_files(package_file("languages", "python", "proxy")).items()
               if k.endswith(".py")}}


def _toolchain(session: SandboxSession) -> str:
    """What runs the probe, for the reference cache's key."""
    session.serve("python")  # asked before anything is staged
    got = session.exec(["python3", "-c", "import sys; print(sys.version)"], role=Role.builder, timeout_s=60)
    return f"{session.backend}:{got.output.decode(errors='replace').strip()}"


class PythonCallProbe(CallProbe):
    def __init__(self, task: Task, calls: Sequence[str], *, includes: Sequence[str] = (), prelude: str | None = None):
        if includes:
            raise BadInput(f"{task.slug}: `includes` names C++ headers; a Python call's imports go in its prelude")
        self.task = task
        self.modules = proxied_modules(task)
        if not self.modules:
            raise BadInput(f"{task.path}: a Python exercise with no top-level .py solution file to call")
        self.calls = list(calls)
        if not self.calls:
            raise BadInput("a probe needs at least one call")
        self.steps = [parse_call(c) for c in self.calls]
        self.observations = [sum(observe for observe, _ in steps) for steps in self.steps]
        self.prelude = check_prelude(default_prelude(task) if prelude is None else prelude)

    def _config(self, out: str) -> bytes:
        return json.dumps({"calls": self.steps, "prelude": self.prelude, "modules": self.modules, "bounds": BOUNDS,
                           "stream": f"{out}/stream" if out else "", "status": f"{out}/status" if out else ""},
                          indent=1).encode()

    def key(self, session: SandboxSession) -> str:
        return "\n".join([hash_files(_runtime()), self._config("").decode(), _toolchain(session)])

    def drop(self, session: SandboxSession) -> None:
        drop_build(self.task, session)

    def run(self, files: Mapping[str, bytes], session: SandboxSession, *, runs: int = 1) -> ProbeRun:
        task = self.task
        staged, tampered = stage_files(task, files)
        driver = {_DRIVER: _runtime()["runtime.py"], _CONFIG: self._config(out_folder(task, session))}
        protected = set(task.protected_files)
        candidate = sorted(f for f in staged if f not in protected and f not in driver)
        tests = sorted(f for f in staged if f in protected) + sorted(driver)
        staged.update(driver)
        limit = session.limits.timeout_s
        out = ProbeRun("ok", tampered=tampered)
        for attempt in range(runs):
            ran, got, printed = proxied_round(self.task, session, staged, candidate, tests, limit,
                                              f"python3 {_DRIVER} {_CONFIG}", _KEPT)
            out.run_seconds = round(out.run_seconds + ran.seconds, 3)
            if attempt == 0:
                out.output = printed[:_OUTPUT_KEEP].strip() or None
            if not _read_run(out, ran, got, limit, first=attempt == 0):
                break
        return out


def _read_run(out: ProbeRun, ran: ExecResult, got: Captured | None, limit: float, *, first: bool) -> bool:
    """One run's stream added to `out`; False when it ends the probe (its status then says why)."""
    if ran.timed_out:
        out.status, out.reason = "timeout", f"the probe timed out after {limit:g} s and was killed"
        return False
    if got is None:
        out.status, out.reason = "incomplete", "the run's output could not be read back"
        return False
    stream_bytes, status_bytes, verdict, console = got.contents
    stream = read_stream(stream_bytes, "call")
    out.streams.append(stream)
    if first:
        out.exit_code = got.exit_code
    kind, _, why = status_bytes.decode(errors="replace").strip().partition(" ")
    forgery = verdict_of(verdict)
    if forgery is not None or kind == "forged" or stream.forged:
        out.status, out.reason = "forged", forgery or why or stream.problem
    elif kind == "import":
        out.status, out.reason, out.build_log = "compile_error", "the candidate does not import", why
    elif kind in ("timeout", "gone"):
        out.status, out.reason = ("timeout" if kind == "timeout" else "crash"), why
    elif kind != "ok" or not stream.complete:
        said = console.decode(errors="replace").strip()
        out.status = "incomplete"
        out.reason = f"{stream.problem or 'the driver did not finish'}" + (f": {said[-500:]}" if said else "")
    return out.status == "ok"


class TestCaseProbe(CallProbe):
    """A task's own test cases as calls, each observing how its case ended in a test round
    (`pass`, `fail` or `error` as the round's report says, `absent` when it says nothing of
    it): the verdict is the test process's, which never runs the candidate's code, and the
    candidate never reads the tests (testrun.py)."""

    __test__ = False

    def __init__(self, task: Task):
        self.task = task
        self.calls = [case.name for case in case_texts(task)]
        self.observations = [1] * len(self.calls)

    def key(self, session: SandboxSession) -> str:
        return "\n".join([hash_files(_runtime()), "test cases", *self.calls, _toolchain(session)])

    def drop(self, session: SandboxSession) -> None:
        drop_build(self.task, session)

    def run(self, files: Mapping[str, bytes], session: SandboxSession, *, runs: int = 1) -> ProbeRun:
        out = ProbeRun("ok")
        for attempt in range(runs):
            report = run_tests(self.task, files, session)
            out.run_seconds = round(out.run_seconds + report.run_seconds, 3)
            if attempt == 0:
                out = replace(out, tampered=report.tampered, output=report.output, exit_code=report.exit_code)
            status, reason, log = _report_status(report)
            if status != "ok":
                out.status, out.reason, out.build_log = status, reason, log
                break
            out.streams.append(self._stream(report))
        return out

    def _stream(self, report: TestReport) -> ProbeStream:
        ended = {t.name: t.status.value for t in report.tests}
        cases = [CaseStream(f"call {i}", [{"o": [{"v": ended.get(name, "absent")}]}], ended=True)
                 for i, name in enumerate(self.calls)]
        return ProbeStream(cases=cases, declared=len(cases))


def _report_status(report: TestReport) -> tuple[Any, str | None, str | None]:
    """(status, reason, build log) of a test round as the probe's."""
    if report.forged:
        return "forged", "; ".join(report.forgery), None
    if report.timeout:
        return "timeout", report.message, None
    if report.status is not Status.error:
        return "ok", None, None
    if any(t.status is Status.error and "::" not in t.name for t in report.tests):  # the test file did not collect
        return "compile_error", "the candidate does not import", report.message
    if (report.message or "").startswith("the test process was killed"):
        return "crash", report.message, None
    return "incomplete", report.message, None
