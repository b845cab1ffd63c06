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

A round is two execs side by side: the builder's lays out the round's folder, runs the
tests and reads back what they wrote; the runner's waits for the round's pipes (made last
in the layout, in a folder of a fresh name each round, so a pipe of an earlier round is
never met), runs the servers and, once they have ended, ends every process of the
runner's and removes what it made (capture.leave_nothing), its exit status saying whether
that worked. The runner's clean-up may run while the builder's test run still reads back
its files: it tells the builder's processes from the candidate's by their owner. A
runner's exec that did not end that way (a server that outlives the test run, a shell the
candidate killed) is followed by a clean-up exec of its own, or the session is made new.
Where the session keeps processes (Docker), the test run is forked from a warm pytest
(warm.py) instead of a fresh one; a round judged in one process never runs beside it.
A task whose files cannot start a run is the suite's error."""

from __future__ import annotations

import re
import secrets
import shlex
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any, Mapping

from ...errors import SandboxUnavailable, SuiteBroken
from ...records import Status, TestReport, forged_report
from ...sandbox.base import ExecResult, Role, SandboxSession
from ...sandbox.capture import Captured, Kept, lost_run, read_back, read_captured
from ...sandbox.servers import Servers as _Servers, end_runner as _end_runner, servers_script
from ...staging import signal_name, stage_files
from ...task import Task
from .cases import task_cases
from .inprocess import runs_in_process
from .junit import parse_junit
from .proxy.client import server_argv
from .proxy.install import PACKAGE, ProxyConfig, printed_by_test, proxy_files, verdict_of
from .screen import screen
from . import warm
from .warm import fresh_script, keeps_one, pytest_script, settle

_PYTHON = "python3"
_PROXY_STAGED = ".python-proxy"  # the proxy's files, staged beside the task's (a name no slug has)
# pytest's own line about the report file, which Aider's run (no --junitxml) never prints.
_JUNIT_LINE = re.compile(r"^-+ generated xml file: .* -+\n", re.M)
_TIMING = re.compile(r"\bin \d+\.\d+s\b")  # what Aider's cleanup_test_output removes
# The builder's exec's exit status when the round's folder could not be laid out.
_LAYOUT_FAILED = 97
# In the session's record of its build tree (SandboxSession.configured): the round under way;
# that a candidate's module ran in the builder's own process since the builder's emptying
# (no warm pytest is started there until then: warm.py).
_ROUND_KEY = "python round"
_IN_PROCESS_RAN = "python in process"


@dataclass(frozen=True)
class _Round:
    """Where a round's files are, inside the sandbox."""

    root: str
    token: str = ""  # names the round's pipes: a pipe of another round is never met

    @staticmethod
    def of(task: Task, session: SandboxSession, *, fresh: bool = False) -> "_Round":
        """The task's round folder; `fresh`: with pipes of a new name, for a round to run."""
        return _Round(f"{session.build_root}/{task.exercise}", secrets.token_hex(8) if fresh else "")

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
        return f"{self.root}/pipes-{self.token}"

    @property
    def out(self) -> str:        # junit XML, verdict, console: the builder's alone
        return f"{self.root}/out"

    def fifos(self, module: str) -> tuple[str, str]:
        return f"{self.pipes}/{module}.in", f"{self.pipes}/{module}.out"


def proxied_modules(task: Task) -> list[str]:
    """The candidate's modules the tests import by name: the solution's top-level .py files."""
    return [PurePosixPath(f).stem for f in task.solution_files if "/" not in f and f.endswith(".py")]


def _layout_script(task: Task, session: SandboxSession, where: _Round, candidate: list[str], tests: list[str],
                   modules: list[str], in_process: bool) -> str:
    """The builder's shell that lays out the round's folder from the staged files; the
    pipes come last, so the runner that finds them finds the rest in place. It fails with
    status _LAYOUT_FAILED and its error: the build space failed (full, gone)."""
    q = shlex.quote
    src = f"{session.src_root}/{task.exercise}"
    # The builder's umask makes folders 0711 (the runner passes, never lists) and files 0600;
    # what the runner reads (its module, the proxy's runtime) is copied under 022.
    steps = [f"rm -rf {q(where.root)}", f"mkdir -p {q(where.root)}" + (f" {q(where.pipes)}" if modules else ""),
             f"mkdir -m 700 {q(where.tests)} {q(where.out)}", f"cd {q(src)}"]
    if tests:
        steps.append(f"cp --parents -- {' '.join(q(f) for f in tests)} {q(where.tests)}/")
    # In process the candidate's files lie beside the tests, where pytest's sys.path finds them.
    if in_process and candidate:
        steps.append(f"cp --parents -- {' '.join(q(f) for f in candidate)} {q(where.tests)}/")
    if not in_process:
        steps += ["umask 022", f"mkdir {q(where.candidate)}"]
        if candidate:
            steps.append(f"cp --no-preserve=mode --parents -- {' '.join(q(f) for f in candidate)} {q(where.candidate)}/")
        steps += [f"cp --no-preserve=mode -R {q(session.src_root)}/{_PROXY_STAGED}/. {q(where.proxy)}/", "umask 066"]
    ends = [where.fifos(m) for m in modules]
    # Others (the runner) may read the pipes to the servers and write the ones from them.
    if ends:
        steps += ["mkfifo -m 604 " + " ".join(q(to) for to, _ in ends),
                  "mkfifo -m 602 " + " ".join(q(back) for _, back in ends)]
    return f"{{ {' && '.join(steps)}; }} 2>&1 || exit {_LAYOUT_FAILED}"


def _builder_script(task: Task, session: SandboxSession, where: _Round, command: str | None, kept: list[Kept],
                    in_process: bool) -> str:
    """The builder's shell after the layout: `command` in the tests' folder (None: pytest
    over the task's test files, on the session's warm pytest where it may: warm.py), the
    proxy modules first on its path (in process, the candidate's own beside the tests), its
    output in out/console; then `kept` files of the out folder read back."""
    path, console = "" if in_process else where.proxy, f"{where.out}/console"
    if command is not None:
        run = fresh_script(where.tests, path, console, command)
    else:
        args = ["-p", "no:cacheprovider", f"--junitxml={where.out}/junit.xml", *task.test_files]
        # The proxy's runtime is the same in every round: the warm pytest imports it once, staged.
        run = pytest_script(session, where.tests, path, console, args,
                            warm=not in_process and _IN_PROCESS_RAN not in session.configured,
                            preload=(f"{session.src_root}/{_PROXY_STAGED}", f"{PACKAGE}.client"))
    return f"{run}; cd {shlex.quote(where.out)} && {{ {read_back(kept)} }}"


_UNSTARTED = Kept("unstarted", 4096)


def _kept_files() -> list[Kept]:
    return [Kept("console", 1 << 20), Kept("junit.xml", 4 << 20), Kept("verdict", 4096), Kept("printed", 1 << 20)]


def _server_script(session: SandboxSession, where: _Round, modules: list[str], wait_s: float) -> str:
    """The runner's shell (servers.servers_script): a server for each module, until each
    has ended (an honest one, when the test process closes its pipes)."""
    starts = [f"{shlex.join(server_argv(_PYTHON, where.proxy, PACKAGE, where.candidate, m, *where.fifos(m)))} </dev/null 2>&1"
              for m in modules]
    return servers_script(session, where.fifos(modules[-1])[1], wait_s, starts, "wait")


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
    run, candidate_output = _proxied(task, session, files, candidate, tests, limit, None, _kept_files())
    return _report(task, session, run, limit, candidate_output, transcript, common)


def out_folder(task: Task, session: SandboxSession) -> str:
    """Where a round's builder writes what it reads back: a folder only the builder reads."""
    return _Round.of(task, session).out


def proxied_round(task: Task, session: SandboxSession, files: Mapping[str, bytes], candidate: list[str],
                  tests: list[str], limit: float, command: str, kept: list[Kept]) -> tuple[ExecResult, Captured | None, str]:
    """One round behind the proxy: `files` staged, those named in `candidate` laid out as the
    servers' and those in `tests` as the builder's; the servers run as the runner beside the
    builder's `command` (`_builder_script`), whose `kept` files of the out folder come back:
    (the builder's exec, what it read back or None after a timeout, what the candidate printed)."""
    run, printed = _proxied(task, session, files, candidate, tests, limit, command, kept)
    return run.result, run.got, printed


@dataclass(frozen=True)
class _Ran:
    """What the builder's exec of a round gave: its result, what it read back, and whether
    the warm pytest it ran on ended before it answered (warm.settle)."""

    result: ExecResult
    got: Captured | None
    warm_lost: bool


def _proxied(task: Task, session: SandboxSession, files: Mapping[str, bytes], candidate: list[str], tests: list[str],
             limit: float, command: str | None, kept: list[Kept]) -> tuple[_Ran, str]:
    """`proxied_round` (command None: pytest over the task's tests), run again once where the
    container was made new under it, and once where the candidate's server never met the test
    process (a sandbox too slow to start it: none of the candidate's code ran), then the
    sandbox's error; with what the candidate printed. Not so where several modules are
    proxied: one module's code could have ended another's server."""
    session.stage(task.exercise, files)
    single = len(proxied_modules(task)) == 1
    for _ in range(2):
        run, servers = _proxied_in_place(task, session, candidate, tests, limit, command, kept)
        unstarted = ""
        if run.got is not None:  # the test process's own word (client.py), read back last
            run.got.sizes.pop()
            unstarted = run.got.contents.pop().decode(errors="replace").strip()
        if not (unstarted and single):
            break
    else:
        raise SandboxUnavailable(f"{task.slug}: {unstarted}, twice in a row")
    if servers.error is not None and not run.result.timed_out:  # a timeout's restart ended the servers' exec too
        raise servers.error
    return run, servers.result.output.decode(errors="replace") if servers.result else ""


def _proxied_in_place(task: Task, session: SandboxSession, candidate: list[str], tests: list[str], limit: float,
                      command: str | None, kept: list[Kept]) -> tuple[_Ran, _Servers]:
    """`_proxied_round`, with the test process's word on a server that never came read back
    after `kept`; again once where the container was made new under it."""
    for _ in range(2):
        done = _proxied_round(task, session, candidate, tests, limit, command, [*kept, _UNSTARTED])
        if done is not None:
            return done
    raise SandboxUnavailable(f"the {session.backend} sandbox was made new under two rounds of {task.slug} in a row")


def _builder_run(session: SandboxSession, script: str, kept: list[Kept], limit: float) -> _Ran:
    ran = session.exec(["sh", "-c", script], role=Role.builder, timeout_s=limit)
    got = None if ran.timed_out else read_captured(ran.output, kept)
    # Only the script's own lines, before the files it read back (the test run prints only
    # into its files, which hold what the candidate made it print).
    return _Ran(ran, got, got is not None and settle(session, got.preamble))


def _proxied_round(task: Task, session: SandboxSession, candidate: list[str], tests: list[str], limit: float,
                   command: str | None, kept: list[Kept]) -> tuple[_Ran, _Servers] | None:
    """The builder's exec (lay out, run, read back) beside the runner's (the servers, its
    clean-up), or None where the build tree was lost before the run began (the emptying the
    session owed since its reset found the container unfit and made it new, ending the
    servers' exec with it): that round is to run again."""
    modules = proxied_modules(task)
    where = _Round.of(task, session, fresh=True)
    start_s = max(1.0, min(20.0, limit / 3))
    configs = [ProxyConfig(module=m, candidate_dir=where.candidate, python=_PYTHON, fifos=where.fifos(m),
                           call_timeout_s=max(1.0, min(10.0, limit / 3)), total_timeout_s=max(1.0, limit - 5),
                           start_timeout_s=start_s, verdict_path=f"{where.out}/verdict",
                           printed_path=f"{where.out}/printed", unstarted_path=f"{where.out}/{_UNSTARTED.name}")
               for m in modules]
    session.stage(_PROXY_STAGED, proxy_files(configs))
    if session.keeps_processes:
        session.stage(warm.STAGED, warm.staged_files())
    session.configured[_ROUND_KEY] = where.token  # forgotten when the build tree is lost
    servers = _Servers(session, _server_script(session, where, modules, start_s), limit + 30, "python-servers")
    servers.start()
    script = (f"{_layout_script(task, session, where, candidate, tests, modules, False)}; "
              f"{_builder_script(task, session, where, command, kept, False)}")
    run = _builder_run(session, script, kept, limit)
    lost = not run.result.timed_out and session.configured.get(_ROUND_KEY) != where.token
    _end_runner(session, servers)
    if lost:
        return None
    _check_layout(task, run.result)
    return run, servers


def _check_layout(task: Task, ran: ExecResult) -> None:
    if ran.exit_code == _LAYOUT_FAILED:  # the task's files are checked before: the build space failed (full, gone)
        raise SandboxUnavailable(f"the round's folder for {task.slug} could not be laid out: "
                                 f"{ran.output.decode(errors='replace').strip()[:500]}")


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
        return forged_report(refused, transcript=transcript, **common)
    if keeps_one(session):  # the candidate's module is about to run as the builder, beside it (warm.py)
        session.make_fit()
    session.configured[_IN_PROCESS_RAN] = task.slug  # forgotten at the next reset, before the emptying
    where = _Round.of(task, session, fresh=True)
    session.stage(task.exercise, dict(files))
    script = (f"{_layout_script(task, session, where, candidate, tests, [], True)}; "
              f"{_builder_script(task, session, where, None, _kept_files(), True)}")
    run = _builder_run(session, script, _kept_files(), limit)
    _check_layout(task, run.result)
    return _report(task, session, run, limit, "", transcript, common)


def _report(task: Task, session: SandboxSession, run: _Ran, limit: float, candidate_output: str, transcript: bool,
            common: dict[str, Any]) -> TestReport:
    ran, got = run.result, run.got
    timings = dict(built=True, run_seconds=round(ran.seconds, 3), output=candidate_output or None, **common)
    if got is None or run.warm_lost:
        lost = ("the warm pytest ended before the test run's end was known" if run.warm_lost and not ran.timed_out
                else lost_run(ran, limit))
        return TestReport(status=Status.error, timeout=ran.timed_out, message=lost, **timings)
    console = clean_console(got.contents[0].decode(errors="replace"), task, session)
    if console.split("\n", 1)[0].endswith("No module named pytest"):  # python3's own line, before pytest runs
        raise SandboxUnavailable(f"the {session.backend} sandbox's {_PYTHON} has no pytest")
    forgery = verdict_of(got.contents[2])
    code = got.exit_code
    declared = {f"{rel}::{c.node}": c for rel, c in task_cases(task)}
    tests, unreadable = parse_junit(got.contents[1], declared)
    printed = printed_by_test(got.contents[3])  # what the candidate printed behind the proxy, by test
    for t in tests:
        t.message = exercise_paths(t.message, task, session) if t.message else t.message
        if t.name in printed:
            t.output = "\n".join(text for text in (t.output, printed[t.name].strip()) if text) or None
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
        text = text.replace(folder, task.exercise)
    return text


def drop_build(task: Task, session: SandboxSession) -> None:
    """Free the round's folder in the session's build space."""
    session.exec(["rm", "-rf", _Round.of(task, session).root], role=Role.builder, timeout_s=60)
