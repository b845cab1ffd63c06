"""One test round of a Python workspace against a task in a sandbox session.

pytest runs the task's test files as the builder; each candidate module they import is a
proxy (proxy/) of a server that runs the candidate's module as the runner. The two are two
concurrent execs that meet on named pipes the builder made: the runner may only read the
pipe to the server and only write the pipe from it, and reads nothing of the builder's but
its own module's files and the proxy's runtime. The outcome is pytest's junit XML and the
proxy's verdict file, both written by the test process in a folder only the builder reads,
and read back by the builder's exec; the candidate never runs in that process.

A task whose tests read the call stack runs in one process (inprocess.py): the candidate's
files, once the static screen (screen.py) has passed them in the harness's own process,
are laid out beside the test files, where the builder's pytest imports them directly; the
round is then the layout and the test run, with no proxy, no servers and nothing of the
runner's to clean up. A refused candidate is never staged: its round is forged.

A round is four execs: the builder lays out the round's folder; the test run and the
servers, side by side; the runner's clean-up once both have ended (not before: in a
container, a clean-up that finds the builder's processes still there cannot tell them
from the candidate's). A task whose files cannot start a run is the suite's error."""

from __future__ import annotations

import re
import shlex
import tempfile
import threading
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any, Mapping

from ...errors import SandboxUnavailable, SuiteBroken
from ...fs import read_files
from ...records import Status, TestCaseResult, TestReport
from ...sandbox.base import ExecResult, Role, SandboxSession
from ...sandbox.capture import Captured, Kept, leave_nothing, read_back, read_captured
from ...staging import signal_name, stage_files
from ...task import Task
from .cases import PytestCase, task_cases
from .inprocess import runs_in_process
from .proxy.client import server_argv
from .proxy.install import PACKAGE, ProxyConfig, install, verdict_of
from .screen import screen

_PYTHON = "python3"
_PROXY_STAGED = ".python-proxy"  # the proxy's files, staged beside the task's (a name no slug has)
# pytest's own line about the report file, which Aider's run (no --junitxml) never prints.
_JUNIT_LINE = re.compile(r"^-+ generated xml file: .* -+\n", re.M)
_TIMING = re.compile(r"\bin \d+\.\d+s\b")  # what Aider's cleanup_test_output removes
_MESSAGE_CAP = 8000
# How long the servers' exec may outlive the test run before another exec ends it: an
# honest server exits as soon as the test process closes its end.
_SERVER_GRACE_S = 2.0


@dataclass(frozen=True)
class _Round:
    """Where a round's files are, inside the sandbox."""

    root: str

    @staticmethod
    def of(task: Task, session: SandboxSession) -> "_Round":
        return _Round(f"{session.build_root}/{task.slug}")

    @property
    def candidate(self) -> str:  # the candidate's files: the runner's to read
        return f"{self.root}/candidate"

    @property
    def tests(self) -> str:      # the task's files: the builder's alone
        return f"{self.root}/tests"

    @property
    def proxy(self) -> str:      # the proxy modules and their runtime: both read it
        return f"{self.root}/proxy"

    @property
    def pipes(self) -> str:      # the named pipes: the runner may pass, not list
        return f"{self.root}/pipes"

    @property
    def out(self) -> str:        # junit XML, verdict, console: the builder's alone
        return f"{self.root}/out"

    def fifos(self, module: str) -> tuple[str, str]:
        return f"{self.pipes}/{module}.in", f"{self.pipes}/{module}.out"


def proxied_modules(task: Task) -> list[str]:
    """The candidate's modules the tests import by name: the solution's top-level .py files."""
    return [PurePosixPath(f).stem for f in task.solution_files if "/" not in f and f.endswith(".py")]


def _proxy_files(configs: list[ProxyConfig]) -> dict[str, bytes]:
    """The proxy folder of the round (install.install), as files to stage."""
    with tempfile.TemporaryDirectory(prefix="harness-proxy-") as scratch:
        return read_files(install(Path(scratch), configs))


def _layout_script(task: Task, session: SandboxSession, where: _Round, candidate: list[str], tests: list[str],
                   modules: list[str], in_process: bool) -> str:
    q = shlex.quote
    src = f"{session.src_root}/{task.slug}"
    steps = [f"rm -rf {q(where.root)}",
             "mkdir -p " + " ".join(q(d) for d in (where.candidate, where.tests, where.proxy, where.pipes, where.out)),
             f"cd {q(src)}"]
    # In process the candidate's files lie beside the tests, where pytest's sys.path finds them.
    for files, dest in ((candidate, where.tests if in_process else where.candidate), (tests, where.tests)):
        if files:
            steps.append(f"cp --parents -- {' '.join(q(f) for f in files)} {q(dest)}/")
    if not in_process:
        steps += [f"cp -R {q(session.src_root)}/{_PROXY_STAGED}/. {q(where.proxy)}/",
                  f"chmod -R go+rX {q(where.candidate)} {q(where.proxy)}"]
    steps += [f"chmod 711 {q(where.root)} {q(where.pipes)}", f"chmod 700 {q(where.tests)} {q(where.out)}"]
    for module in modules:
        to_server, from_server = (q(p) for p in where.fifos(module))
        # Others (the runner) may read the pipe to the server and write the one from it.
        steps.append(f"mkfifo -m 604 {to_server} && mkfifo -m 602 {from_server}")
    return " && ".join(steps)


def _pytest(task: Task, where: _Round) -> str:
    return (f"{_PYTHON} -s -m pytest -p no:cacheprovider --junitxml={shlex.quote(where.out)}/junit.xml "
            + " ".join(shlex.quote(f) for f in task.test_files))


def _builder_script(where: _Round, command: str, kept: list[Kept], in_process: bool) -> str:
    """The builder's exec: `command` in the tests' folder, the proxy modules first on its
    path (in process, the candidate's own beside the tests), its output in out/console;
    then `kept` files of the out folder read back."""
    q = shlex.quote
    path = "" if in_process else f"PYTHONPATH={q(where.proxy)} "
    env = (f"{path}PYTHONDONTWRITEBYTECODE=1 PYTEST_DISABLE_PLUGIN_AUTOLOAD=1 "
           "HOME=/nonexistent LANG=C.UTF-8")
    return (f"cd {q(where.tests)} && env -i PATH=/usr/bin:/bin {env} {command} >{q(where.out)}/console 2>&1 "
            f"</dev/null; code=$?; cd {q(where.out)} && {{ {read_back(kept)} }}")


def _kept_files(where: _Round) -> list[Kept]:
    return [Kept("console", 1 << 20), Kept("junit.xml", 4 << 20), Kept("verdict", 4096)]


def _server_script(session: SandboxSession, where: _Round, modules: list[str]) -> str:
    q = shlex.quote
    starts = []
    for module in modules:
        to_server, from_server = where.fifos(module)
        argv = server_argv(_PYTHON, where.proxy, PACKAGE, where.candidate, module, to_server, from_server)
        starts.append(f"{shlex.join(argv)} </dev/null 2>&1 &")
    # When the servers are gone, so is everything they started (a fork bomb's children too:
    # a second kill finds what forked during the first): it is the runner's only, here and
    # now, while the builder's test run may still be reading back its files.
    return (f"cd {q(session.scratch_root)} && find . -mindepth 1 -delete 2>/dev/null; "
            f"{' '.join(starts)} wait; kill -9 -1 2>/dev/null; kill -9 -1 2>/dev/null; exit 0")


class _Servers(threading.Thread):
    """The runner's exec, beside the test run."""

    def __init__(self, session: SandboxSession, script: str, timeout_s: float):
        super().__init__(daemon=True, name="python-servers")
        self.session, self.script, self.timeout_s = session, script, timeout_s
        self.result: ExecResult | None = None
        self.error: BaseException | None = None

    def run(self) -> None:
        try:
            self.result = self.session.exec(["sh", "-c", self.script], role=Role.runner, timeout_s=self.timeout_s)
        except BaseException as exc:  # raised again on the caller's thread
            self.error = exc


def _end_runner(session: SandboxSession, servers: _Servers) -> None:
    """Once the test run has ended: the servers' exec ended (a server that outlives the test
    process is killed where another exec can reach it, else its exec's own limit ends it),
    then every process of the runner ended and what it made removed (capture.leave_nothing),
    or the session made new where that cannot be made sure."""
    servers.join(_SERVER_GRACE_S)
    if servers.is_alive():
        session.exec(["sh", "-c", "kill -9 -1 2>/dev/null; exit 0"], role=Role.runner, timeout_s=30)
        servers.join()
    done = session.exec(["sh", "-c", leave_nothing(session)], role=Role.runner, timeout_s=30)
    session.runner_dirty = done.exit_code != 0
    if session.runner_dirty:
        session.make_fit()


def run_tests(task: Task, workspace: Path | Mapping[str, bytes], session: SandboxSession, *,
              transcript: bool = False, time_limit_s: float | None = None) -> TestReport:
    """Test a workspace. `transcript` also keeps, for a run that did not pass, pytest's
    console output as Aider's benchmark sends it (TestReport.transcript). `time_limit_s`
    takes the place of the sandbox's run limit."""
    modules = proxied_modules(task)
    if not task.test_files or not modules:
        what = "names no test file" if not task.test_files else "has no top-level .py solution file to test"
        raise SuiteBroken(f"{task.path}: a Python exercise that {what} (.meta/config.json)")
    files, tampered = stage_files(task, workspace)
    protected = set(task.protected_files)
    candidate = sorted(f for f in files if f not in protected)
    tests = sorted(f for f in files if f in protected)
    limit = session.limits.timeout_s if time_limit_s is None else time_limit_s
    common: dict[str, Any] = dict(tampered=tampered, backend=session.backend)
    if runs_in_process(task):
        return _run_in_process(task, session, files, candidate, tests, limit, transcript, common)
    where = _Round.of(task, session)
    ran, got, candidate_output = proxied_round(task, session, files, candidate, tests, limit, _pytest(task, where),
                                               _kept_files(where))
    return _report(task, session, ran, got, limit, candidate_output, transcript, common)


def out_folder(task: Task, session: SandboxSession) -> str:
    """Where a round's builder writes what it reads back: a folder only the builder reads."""
    return _Round.of(task, session).out


def proxied_round(task: Task, session: SandboxSession, files: Mapping[str, bytes], candidate: list[str],
                  tests: list[str], limit: float, command: str, kept: list[Kept]) -> tuple[ExecResult, Captured | None, str]:
    """One round behind the proxy: `files` staged, those named in `candidate` laid out as the
    servers' and those in `tests` as the builder's; the servers run as the runner beside the
    builder's `command` (`_builder_script`), whose `kept` files of the out folder come back:
    (the builder's exec, what it read back or None after a timeout, what the candidate printed)."""
    modules = proxied_modules(task)
    where = _Round.of(task, session)
    configs = [ProxyConfig(module=m, candidate_dir=where.candidate, python=_PYTHON, fifos=where.fifos(m),
                           call_timeout_s=max(1.0, min(10.0, limit / 3)), total_timeout_s=max(1.0, limit - 5),
                           start_timeout_s=max(1.0, min(20.0, limit / 3)), verdict_path=f"{where.out}/verdict")
               for m in modules]
    session.stage(task.slug, files)
    session.stage(_PROXY_STAGED, _proxy_files(configs))
    _lay_out(task, session, where, candidate, tests, modules, in_process=False)
    servers = _Servers(session, _server_script(session, where, modules), limit + 30)
    servers.start()
    ran = session.exec(["sh", "-c", _builder_script(where, command, kept, False)], role=Role.builder, timeout_s=limit)
    _end_runner(session, servers)
    if servers.error is not None and not ran.timed_out:  # a timeout's restart ended the servers' exec too
        raise servers.error
    candidate_output = servers.result.output.decode(errors="replace") if servers.result else ""
    got = None if ran.timed_out else read_captured(ran.output, kept)
    return ran, got, candidate_output


def _lay_out(task: Task, session: SandboxSession, where: _Round, candidate: list[str], tests: list[str],
             modules: list[str], *, in_process: bool) -> None:
    script = _layout_script(task, session, where, candidate, tests, modules, in_process)
    laid = session.exec(["sh", "-c", script], role=Role.builder, timeout_s=60)
    if laid.exit_code != 0:  # the task's files are checked above: the build space failed (full, gone)
        raise SandboxUnavailable(f"the round's folder for {task.slug} could not be laid out: "
                                 f"{laid.output.decode(errors='replace').strip()[:500]}")


def _run_in_process(task: Task, session: SandboxSession, files: Mapping[str, bytes], candidate: list[str],
                    tests: list[str], limit: float, transcript: bool, common: dict[str, Any]) -> TestReport:
    """The round of a task judged in one process: screened here, then pytest alone."""
    # Beside the tests any other file of the workspace would be a module the tests import
    # in place of the standard library's (an `errno.py`, a compiled `io.*.so`).
    solution = set(task.solution_files)
    refused = [f"file: {f}: not a solution file of the task, it would lie beside the tests"
               for f in candidate if f not in solution]
    refused += [str(r) for r in screen({f: files[f] for f in candidate if f in solution})]
    if refused:
        # Nothing of it is staged or run: what it would report is what it reached for.
        message = "forged: " + "; ".join(refused)
        return TestReport(status=Status.failed, built=False, message=message,
                          transcript=message if transcript else None, **common).overruled(refused)
    where = _Round.of(task, session)
    session.stage(task.slug, dict(files))
    _lay_out(task, session, where, candidate, tests, [], in_process=True)
    ran = session.exec(["sh", "-c", _builder_script(where, _pytest(task, where), _kept_files(where), True)],
                       role=Role.builder, timeout_s=limit)
    got = None if ran.timed_out else read_captured(ran.output, _kept_files(where))
    return _report(task, session, ran, got, limit, "", transcript, common)


def _report(task: Task, session: SandboxSession, ran: ExecResult, got: Captured | None, limit: float,
            candidate_output: str, transcript: bool, common: dict[str, Any]) -> TestReport:
    timings = dict(built=True, run_seconds=round(ran.seconds, 3), output=candidate_output or None, **common)
    if got is None:
        lost = (f"the test run timed out after {limit:g} s and was killed" if ran.timed_out
                else "the test run left no readable results")
        return TestReport(status=Status.error, timeout=ran.timed_out, message=lost, **timings)
    console = clean_console(got.contents[0].decode(errors="replace"), task, session)
    if console.split("\n", 1)[0].endswith("No module named pytest"):  # python3's own line, before pytest runs
        raise SandboxUnavailable(f"the {session.backend} sandbox's {_PYTHON} has no pytest")
    forgery = verdict_of(got.contents[2])
    code = got.exit_code
    declared = {f"{rel}::{c.node}": c for rel, c in task_cases(task)}
    tests, unreadable = parse_junit(got.contents[1], declared)
    for t in tests:
        t.message = exercise_paths(t.message, task, session) if t.message else t.message
    sig = signal_name(code) if code is not None else None
    why: str | None = None
    if sig is not None:
        why = f"the test process was killed by {sig}"
    elif unreadable is not None:
        why = f"no test results: {unreadable} (exit code {code})"
    elif not tests:
        why = f"pytest collected no tests (exit code {code})"
    elif all(t.status is Status.passed for t in tests) and code != 0:
        why = f"every test passed but pytest exited with code {code}"
    elif all(t.status is Status.passed for t in tests) and len(tests) < len(declared):
        why = "fewer tests ran than the test files declare"
    if why is not None:
        report = TestReport(status=Status.error, message=why, tests=tests, exit_code=code, **timings)
    elif any(t.status is Status.error and "::" not in t.name for t in tests):  # the file did not collect
        report = TestReport(status=Status.error, message=console or None, tests=tests, exit_code=code, **timings)
    else:
        passed = all(t.status is Status.passed for t in tests)
        report = TestReport(status=Status.passed if passed else Status.failed, tests=tests, exit_code=code, **timings)
    report = report.overruled([f"forged: {forgery}"] if forgery else [])
    if transcript and not report.passed:
        report.transcript = console
    return report


def clean_console(text: str, task: Task, session: SandboxSession) -> str:
    """pytest's output as Aider's benchmark sends it: its timings gone, the exercise's
    folder named by its name, the report file's line gone."""
    return _TIMING.sub("", exercise_paths(_JUNIT_LINE.sub("", text), task, session))


def exercise_paths(text: str, task: Task, session: SandboxSession) -> str:
    """The round's folders (tests, the candidate's, the proxy's) named as the exercise's."""
    where = _Round.of(task, session)
    for folder in (where.tests, where.candidate, where.proxy):
        text = text.replace(folder, task.slug)
    return text


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


def drop_build(task: Task, session: SandboxSession) -> None:
    """Free the round's folder in the session's build space."""
    session.exec(["rm", "-rf", _Round.of(task, session).root], role=Role.builder, timeout_s=60)
