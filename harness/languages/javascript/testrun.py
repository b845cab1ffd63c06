"""One JavaScript test round in a session, as Aider's benchmark runs it (npm-test.sh):
every `xtest(` of the spec files made `test(`, then `npm run test` (the exercise's
`jest ./*`) in the exercise's folder with the image's node_modules linked into it; the round
prints npm's start lines and runs the script as npm would, without npm itself.

Two execs side by side, as Python's round (languages/python/testrun.py): the builder's lays
out the round (the task's files and a client module in each solution file's place in a
folder only it reads; the candidate's files and the task's but the specs in one the runner
reads; the proxy's runtime; the named pipes last), runs Jest with the harness's reporter
beside Jest's own (its record and the console in a folder only the builder reads, Jest's
cache in the build tree) and a globalSetup that compiles the candidate's files with Babel
into a folder the runner reads, ends the servers and reads back; the runner's waits for the
pipes, serves the candidate's compiled module (assets/proxy.js) and ends with its clean-up
(capture.leave_nothing). The candidate's code never runs in Jest's process; the verdict is
the reporter's record with the round's token (verdict.py)."""

from __future__ import annotations

import json
import posixpath
import re
import secrets
import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Mapping

from ...errors import SandboxUnavailable, SuiteBroken
from ...paths import package_file
from ...records import Status, TestReport
from ...sandbox.base import Role, SandboxSession
from ...sandbox.capture import Captured, Kept, killed_at_limit, lost_run, read_back, read_captured
from ...sandbox.servers import Servers, end_runner, servers_script
from ...staging import stage_files
from ...task import Task
from . import warm
from .cases import case_texts
from .verdict import clean_console, fresh_token, judged, read_record, tests_of

NPM_FOLDER = "/opt/harness/npm"  # where the image's npm install ran (assets/image.dockerfile)
NODE_MODULES = f"{NPM_FOLDER}/node_modules"
_XTEST = re.compile(rb"\bxtest\(")
_CONSOLE_CAP = 1 << 20
_RECORD_CAP = 8 << 20
_LAYOUT_FAILED = 97
# A test run's environment, warm or fresh (the round's token and record path aside): `env -i`
# drops the rest of the builder's. npm puts node_modules/.bin first.
_ENV = f"PATH={NODE_MODULES}/.bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/nonexistent"


@dataclass(frozen=True)
class _Round:
    """Where a round's files are, inside the sandbox."""

    root: str
    token: str

    @staticmethod
    def of(task: Task, session: SandboxSession, token: str = "") -> "_Round":
        return _Round(f"{session.build_root}/js-{task.slug}", token)

    @property
    def tests(self) -> str:      # the task's files and the client modules: the builder's alone
        return f"{self.root}/tests"

    @property
    def candidate(self) -> str:  # the candidate's files, and the task's but the specs: the runner reads them
        return f"{self.root}/candidate"

    @property
    def out(self) -> str:        # the console and the reporter's record: the builder's alone
        return f"{self.root}/out"

    @property
    def proxy(self) -> str:      # assets/proxy.js, both read it: under node_modules, which babel-jest leaves alone
        return f"{self.root}/node_modules/proxy.js"

    @property
    def setup(self) -> str:      # Jest's globalSetup, which compiles the candidate's files: the builder's alone
        return f"{self.root}/node_modules/setup.js"

    @property
    def compiled(self) -> str:   # the candidate's files as Babel compiled them: the builder writes, the runner reads
        return f"{self.root}/compiled"

    def fifos(self, module: str) -> tuple[str, str]:
        return f"{self.root}/pipes-{self.token}/{module}.in", f"{self.root}/pipes-{self.token}/{module}.out"

    @property
    def done(self) -> str:       # a pipe the builder opens once the tests have run: the runner's end
        return f"{self.root}/pipes-{self.token}/.done"


def _jest_args(session: SandboxSession, where: _Round) -> str:
    """What the round adds to the test script: the harness's reporter beside Jest's own, the
    candidate's files compiled before the tests, and Jest's cache in the build tree, where the
    session's later rounds find it."""
    return (f"--reporters=default --reporters={where.root}/reporter.js --globalSetup={where.setup} "
            f"--cacheDirectory={session.build_root}/.jest-cache")


def npm_run_test(task: Task, files: Mapping[str, bytes]) -> tuple[str, str]:
    """What `npm run test` prints before the script, and the script, from the exercise's
    package.json: the round runs the script as npm does (`sh -c`, node_modules/.bin first on
    the PATH) without npm's own start, a third of a round's CPU."""
    try:
        package = json.loads(files["package.json"])
        script = package["scripts"]["test"]
    except (KeyError, TypeError, ValueError) as e:
        raise SuiteBroken(f"{task.path}: package.json has no test script ({type(e).__name__}: {e})") from None
    if not isinstance(script, str):
        raise SuiteBroken(f"{task.path}: package.json's test script is not a string")
    named = package.get("name"), package.get("version")
    event = f"{named[0]}@{named[1]} test" if all(isinstance(x, str) and x for x in named) else "test"
    return f"\n> {event}\n> " + script.strip().replace("\n", "\n> ") + "\n\n", script


def staged_files(task: Task, workspace: Path | Mapping[str, bytes]) -> tuple[dict[str, bytes], list[str]]:
    """The round's files: the task's with the model's solution, the spec files' `xtest(`
    made `test(` (npm-test.sh's sed), and the tampered ones."""
    files, tampered = stage_files(task, workspace)
    for rel in task.test_files:
        if rel in files and "/" not in rel and rel.endswith(".spec.js"):
            files[rel] = _XTEST.sub(b"test(", files[rel])
    return files, tampered


def proxied_modules(task: Task) -> list[str]:
    """The solution's top-level files, each replaced by a client module among the tests."""
    return [f for f in task.solution_files if "/" not in f and f.endswith(".js")]


def _client(where: _Round, module: str, modules: list[str]) -> bytes:
    """A client module; it names the candidate's modules and their folders, the only files
    whose frames it shows of an error the server sends (assets/proxy.js, shownFrames)."""
    to_server, from_server = where.fifos(module)
    proxy, a, b = (json.dumps(x) for x in (where.proxy, to_server, from_server))
    files = json.dumps({"candidate": where.candidate, "tests": where.tests, "modules": modules})
    return (f"const proxy = require({proxy});\nif (require.main === module) proxy.main({a}, {b}, process.argv.slice(2));\n"
            f"else module.exports = proxy.client({a}, {b}, {files});\n").encode()


def _specs(task: Task, files: Iterable[str]) -> list[str]:
    return [f for f in files if task.is_build_file(f) and f.endswith((".spec.js", ".test.js"))]


def _setup(task: Task, where: _Round, files: Mapping[str, bytes]) -> bytes:
    """Jest's globalSetup for the round: every script of the candidate's folder compiled."""
    scripts = sorted(set(f for f in files if f.endswith(".js")) - set(_specs(task, files)))
    args = ", ".join(json.dumps(x) for x in (NODE_MODULES, where.candidate, where.compiled, scripts))
    return f"module.exports = () => require({json.dumps(where.proxy)}).compileInto({args});\n".encode()


def _builder_script(task: Task, session: SandboxSession, where: _Round, files: Mapping[str, bytes],
                    modules: list[str], limit: float) -> str:
    """Lay the round out (the pipes last), run the test script as `npm run test` would in the
    tests' folder, end the servers, read back the console and the record."""
    q = shlex.quote
    src = f"{session.src_root}/js-{task.slug}"
    specs = _specs(task, files)
    shared = [f for f in files if f not in specs and f not in modules]
    steps = [f"rm -rf {q(where.root)}", "umask 022",
             f"mkdir -p {q(where.candidate)} {q(where.compiled)} {q(where.root)}/pipes-{where.token} {q(where.root)}/node_modules",
             f"cp --no-preserve=mode {q(src)}/.harness/proxy.js {q(where.proxy)}",
             f"cd {q(src)}", f"cp --no-preserve=mode --parents -- {' '.join(q(f) for f in [*shared, *modules])} {q(where.candidate)}/",
             "umask 077", f"mkdir {q(where.tests)} {q(where.out)}",
             f"cp --parents -- {' '.join(q(f) for f in [*shared, *specs])} {q(where.tests)}/",
             f"cp .harness/reporter.js {q(where.root)}/reporter.js", f"chmod 700 {q(where.root)}/reporter.js",
             f"cp .harness/setup.js {q(where.setup)}", f"chmod 700 {q(where.setup)}",
             *(f"cp .harness/client-{i}.js {q(where.tests)}/{q(m)}" for i, m in enumerate(modules)),
             # Both links npm-test.sh makes: `jest ./*` names every file of the folder in its last line.
             f"ln -s {NODE_MODULES} {q(where.tests)}/node_modules",
             f"ln -s {NPM_FOLDER}/package-lock.json {q(where.tests)}/package-lock.json"]
    ends = [where.fifos(m) for m in modules]
    steps += ["mkfifo -m 604 " + " ".join(q(a) for a in [where.done, *(a for a, _ in ends)]),
              "mkfifo -m 602 " + " ".join(q(b) for _, b in ends)]
    layout = f"{{ {' && '.join(steps)}; }} 2>&1 || exit {_LAYOUT_FAILED}"
    banner, script = npm_run_test(task, files)
    console, record, args = f"{where.out}/console", f"{where.out}/record", _jest_args(session, where)
    fresh = (f"env -i {_ENV} HARNESS_JS_TOKEN=$HARNESS_JS_TOKEN HARNESS_JS_RESULTS={q(record)} timeout -s KILL {limit:g} "
             f"sh -c {q(f'{script} {args}')} >>{q(console)} 2>&1; code=$?")
    request = (q(where.tests), q(console), q(where.root), '"$HARNESS_JS_TOKEN"', q(record))
    run_jest = warm.jest_script(session, NODE_MODULES, _ENV, script, args, request, limit, fresh)
    # Opened and closed, the done pipe ends the runner's wait (its shell is gone where the
    # candidate killed it: then the open waits out its bound).
    stop = f"timeout 2 sh -c {q(f'exec 3>{where.done}')} 2>/dev/null;"
    run = f"cd {q(where.tests)} && printf %s {q(banner)} >{q(console)} && {{ {run_jest}; }}; {stop} cd {q(where.out)}"
    return f"{layout}; read -r HARNESS_JS_TOKEN; {run} && {{ {read_back(_KEPT)} }}"


_KEPT = (Kept("console", _CONSOLE_CAP), Kept("record", _RECORD_CAP))


def _server_script(session: SandboxSession, where: _Round, modules: list[str], wait_s: float) -> str:
    """The runner's shell (servers.servers_script): a server for each module, each serving
    until the builder opens the done pipe. A server that waits to be told to end would race
    the builder: one that has just seen a client go reopens its pipes, and a word sent before
    it did is lost, the server left waiting (a third of forth's rounds, each then 2 s slower
    and its container made new)."""
    q = shlex.quote
    # The compiled files require the preset's core-js polyfills: the image's, as in Jest's own
    # process, not the older copy Debian's node finds in /usr/share/nodejs.
    starts = [f"HARNESS_JS_COMPILED={q(where.compiled)} NODE_PATH={NODE_MODULES} node {q(where.proxy)} serve "
              f"{NODE_MODULES} {q(where.candidate)} {q(m)} {q(where.fifos(m)[0])} {q(where.fifos(m)[1])} </dev/null 2>&1" for m in modules]
    return servers_script(session, where.fifos(modules[-1])[1], wait_s, starts, f": <{q(where.done)}")


def run_tests(task: Task, workspace: Path | Mapping[str, bytes], session: SandboxSession, *,
              transcript: bool = False, time_limit_s: float | None = None) -> TestReport:
    """Test a workspace. `transcript` keeps, for a run that did not pass, the console as
    `npm run test` prints it, cleaned as Aider's benchmark cleans it; `time_limit_s` takes
    the place of the sandbox's run limit."""
    session.serve(task.layout.name)
    if session.backend != "docker":
        raise SandboxUnavailable(f"JavaScript exercises run in the Docker sandbox only, not the {session.backend} backend")
    modules = proxied_modules(task)
    if not task.test_files or not modules:
        raise SuiteBroken(f"{task.path}: a JavaScript exercise without a spec file or a top-level solution file")
    files, tampered = staged_files(task, workspace)
    common: dict[str, Any] = dict(tampered=tampered, backend=session.backend)
    where = _Round.of(task, session, secrets.token_hex(8))
    harness = {".harness/proxy.js": _asset("proxy.js"), ".harness/reporter.js": _asset("reporter.js"),
               ".harness/setup.js": _setup(task, where, files),
               **{f".harness/client-{i}.js": _client(where, m, modules) for i, m in enumerate(modules)}}
    session.stage(f"js-{task.slug}", {**files, **harness})
    if session.keeps_processes:
        session.stage(warm.STAGED, warm.staged_files())
    limit = session.limits.timeout_s if time_limit_s is None else time_limit_s
    token = fresh_token()
    # The servers wait for the pipes as long as the round may last: a loaded machine may start
    # the builder's exec late, and a client that opens a pipe no server will open waits out
    # the limit.
    servers = Servers(session, _server_script(session, where, modules, limit), limit + 30, "javascript-servers")
    servers.start()
    ran = session.exec(["sh", "-c", _builder_script(task, session, where, files, modules, limit)], role=Role.builder,
                       timeout_s=limit + 20, cap=_CONSOLE_CAP + _RECORD_CAP + 4096, stdin=f"{token}\n".encode())
    end_runner(session, servers)
    if ran.exit_code == _LAYOUT_FAILED:
        raise SandboxUnavailable(f"the round's folder for {task.slug} could not be laid out: "
                                 f"{ran.output.decode(errors='replace').strip()[:500]}")
    got = None if ran.timed_out else read_captured(ran.output, _KEPT)
    # Only the script's own lines, before the files it read back (which hold what the
    # candidate made the tests print).
    warm_lost = got is not None and warm.settle(session, got.preamble)
    printed = servers.result.output.decode(errors="replace") if servers.result else ""
    timings = dict(built=True, run_seconds=round(ran.seconds, 3), output=printed[:_CONSOLE_CAP] or None, **common)
    if got is None or got.exit_code == 137 or warm_lost:
        lost = ("the warm Jest ended before the test run's end was known" if warm_lost
                else lost_run(ran, limit) if got is None
                else killed_at_limit(limit))
        return TestReport(status=Status.error, timeout=not warm_lost and (ran.timed_out or got is not None), message=lost,
                          **timings)
    return _report(task, where, got, token, transcript, timings)


def _report(task: Task, where: _Round, got: Captured, token: str, transcript: bool,
            timings: dict[str, Any]) -> TestReport:
    record = read_record(got.contents[1], token)
    declared = [c.name for c in case_texts(task)]
    status, forgery, why = judged(record, got.exit_code, declared)
    tests = tests_of(record, declared)
    for t in tests:
        t.message = _clean(t.message, task, where) if t.message else t.message
    report = TestReport(status=status, message=why and _clean(why, task, where), tests=tests, exit_code=got.exit_code,
                        output_truncated=got.truncated(0), **timings).overruled(forgery)
    if transcript and not report.passed:
        report.transcript = _clean(got.contents[0].decode("utf-8", "replace"), task, where)
    return report


def _clean(text: str, task: Task, where: _Round) -> str:
    """The candidate's copy of a file named as the task's: its frames' paths, absolute in
    the record and relative to the tests' folder (Jest's rootDir) on the console."""
    relative = posixpath.relpath(where.candidate, where.tests) + "/"
    text = text.replace(where.candidate, where.tests).replace(relative, "")
    return clean_console(text, where.tests, task.exercise)


def _asset(name: str) -> bytes:
    return package_file("languages", "javascript", "assets", name).read_bytes()


def drop_build(task: Task, session: SandboxSession) -> None:
    session.exec(["rm", "-rf", _Round.of(task, session).root], role=Role.builder, timeout_s=60)
