"""One Go test round in a session: the screen (screen.py) decides first; the builder copies
the staged package into its build tree and compiles the test binary with `go test -c`, which
runs the vet checks `go test` runs, so a candidate they reject fails here as there (module
cache offline in the build tree; the build cache kept by the session from trial to trial,
so later rounds and trials reuse what earlier ones compiled; linked without the symbol
table and DWARF, as `go test` links a binary it runs, not keeps: 90 ms of CPU, a third of
the build, in every round); the runner runs the binary in its scratch with test2json's
framing and the verdict channel on descriptor 3, and test2json turns its output into events
there (verdict.py judges them)."""

from __future__ import annotations

import re
import shlex
from pathlib import Path
from typing import Any, Mapping

from ...paths import package_file
from ...records import Status, TestCaseResult, TestReport, forged_report
from ...sandbox.base import Role, SandboxSession
from ...sandbox.capture import Kept, capture, lost_run
from ...errors import SandboxUnavailable, SuiteBroken
from ...staging import stage_files
from ...task import Task
from .cases import case_texts, helper_funcs, package_name
from ..token_screen import refused_report
from .screen import refusals
from .verdict import Events, console, fresh_token, judged, read_events, read_record, tests_of

_VERDICT_FILE = "zz_harness_verdict_test.go"
# Printed, with `go build`'s first lines, when the solution builds only beside the tests.
_ALONE = "@@harness: the solution does not build without the tests@@"
_ALONE_CAP = 64 * 1024
_UNDEFINED = re.compile(r"^\S+\.go:\d+:\d+: undefined: (\w+)$")
# The build cache, kept from trial to trial (sandbox/docker.py's /cache): a trial's first round
# had copied the image's 45 MB of the standard library's build into its build tree, 110 to 150
# ms, and the emptying after it deleted them. It starts again from the image's when it holds
# more than _CACHE_MB, so that what it keeps in memory stays small beside a run's limit.
_CACHE = "/cache/go"
_CACHE_MB = 160
_ENV = f"GOCACHE={_CACHE} GOPATH=/build/.go-path HOME=/build GOFLAGS=-mod=mod GOPROXY=off CGO_ENABLED=0"
_EVENTS_CAP = 4 * 1024 * 1024
_TEST2JSON = "/usr/local/bin/test2json"  # the image's link to Go's own (assets/image.dockerfile)


def _subdir(task: Task) -> str:
    return f"go-{task.exercise}"


def _verdict_file(task: Task) -> bytes:
    package = None
    for rel in task.test_files:
        package = package_name(task.read(rel).decode("utf-8", "replace"))
        if package is not None:
            break
    if package is None:
        raise SuiteBroken(f"{task.path}: a Go exercise whose test files have no package clause")
    return package_file("languages", "go", "assets", "verdict_test.go").read_bytes().replace(b"@package@", package.encode())


def _import_path(task: Task) -> str:
    """The package's import path, which `go test ./...` names it by in its result lines: the
    module's path from go.mod (beer-song's is `beer`), the exercise's name where go.mod names none."""
    if (task.path / "go.mod").is_file():
        m = re.search(r"^module\s+(\S+)", task.read_text("go.mod"), re.MULTILINE)
        if m is not None:
            return m.group(1).strip('"')
    return task.exercise


def _clean(text: str, task: Task) -> str:
    """The build folder named as the exercise's, as Aider's benchmark names its own."""
    return text.replace(f"/build/{_subdir(task)}", task.exercise)


def run_tests(task: Task, workspace: Path | Mapping[str, bytes], session: SandboxSession, *,
              transcript: bool = False, time_limit_s: float | None = None) -> TestReport:
    """Test a workspace. `transcript` keeps, for a run that did not pass, the console output
    as plain `go test` prints it (TestReport.transcript); `time_limit_s` takes the place of
    the sandbox's run limit."""
    session.serve(task.layout.name)
    if session.backend != "docker":
        raise SandboxUnavailable(f"Go exercises run in the Docker sandbox only, not the {session.backend} backend")
    files, tampered = stage_files(task, workspace)
    shipped = set(task.shipped_files) | set(task.solution_files)
    # Go compiles every file of the folder: a file the task does not ship is refused, not built.
    created = sorted(f for f in files if f not in shipped)
    tampered = sorted({*tampered, *created})
    files = {rel: data for rel, data in files.items() if rel not in created}
    common: dict[str, Any] = dict(tampered=tampered, backend=session.backend)
    refused = refusals({rel: files[rel] for rel in task.solution_files if rel in files})
    if refused:
        return refused_report(refused, transcript, common)
    files[_VERDICT_FILE] = _verdict_file(task)
    sub = _subdir(task)
    session.stage(sub, files)
    build = f"/build/{sub}"
    binary = f"/build/{sub}.test"
    script = (f"[ -d {_CACHE} ] && [ \"$(df -m --output=used /cache | tail -n 1)\" -lt {_CACHE_MB} ] "
              f"|| {{ rm -rf {_CACHE}; cp -R /opt/harness/gocache {_CACHE}; }}; rm -rf {build} {binary} && mkdir -p {build} "
              f"&& cp -R {session.src_root}/{sub}/. {build}/ && cd {build} && export {_ENV} "
              f"&& go test -c -ldflags='-s -w' -o {binary} . 2>&1 "
              # The tests' files are of the solution's package, and so are their variables:
              # an init that empties the tests' table (`testCases = nil`) passed every test.
              # A solution of the exercise's interface builds without them.
              f"&& {{ go build -gcflags=-e -o /dev/null . >/build/{sub}.alone 2>&1 "
              f"|| {{ echo '{_ALONE}'; head -c {_ALONE_CAP} /build/{sub}.alone; }}; }}")
    built = session.exec(["sh", "-c", script], role=Role.builder, timeout_s=session.limits.build_timeout_s)
    build_output = _clean(built.output.decode("utf-8", "replace"), task)
    if built.timed_out or built.exit_code != 0:
        why = "the build timed out" if built.timed_out else build_output.strip() or f"the build failed ({built.exit_code})"
        report = TestReport(status=Status.error, message=why, build_seconds=round(built.seconds, 3), **common)
        if transcript:
            report.transcript = f"{build_output}FAIL\t{_import_path(task)} [build failed]\nFAIL\n"
        return report
    alone = build_output.find(_ALONE)
    if alone >= 0:
        errors = build_output[alone + len(_ALONE):]
        lines = [line for line in errors.strip().splitlines() if not line.startswith("#")]
        used = [_UNDEFINED.search(line) for line in lines]
        # Calling a function the tests' files give (bottle-song's Title) is the interface;
        # anything else of theirs (their table of cases) is not the solution's to touch.
        if len(errors) >= _ALONE_CAP or not all(m and m.group(1) in helper_funcs(task) for m in used):
            return forged_report(["the solution does not build without the tests' files, whose names it uses: "
                                  + " / ".join(lines[:3])], transcript=transcript, built=True,
                                 build_seconds=round(built.seconds, 3), **common)
        build_output = build_output[:alone]
    return _run(task, session, binary, built.seconds, transcript, time_limit_s, common)


def _run(task: Task, session: SandboxSession, binary: str, build_seconds: float, transcript: bool,
         time_limit_s: float | None, common: dict[str, Any]) -> TestReport:
    limit = session.limits.timeout_s if time_limit_s is None else time_limit_s
    token = fresh_token()
    # test2json as `go test -json` runs it: the binary frames its own lines (-test.v=test2json),
    # and test2json is called by its path in the image, not through a go command started first.
    run = (f"HARNESS_GO_VERDICT={token} {binary} -test.v=test2json -test.count=1 -test.timeout={limit:g}s "
           f">.out 2>&1 3>.verdict; code=$?; {_TEST2JSON} -p {shlex.quote(_import_path(task))} <.out >.events 2>/dev/null")
    kept = (Kept(".events", _EVENTS_CAP), Kept(".verdict", 256))
    ran, got = capture(session, run, kept, limit + 30)
    timings = dict(built=True, build_seconds=round(build_seconds, 3), run_seconds=round(ran.seconds, 3), **common)
    if got is None:
        return TestReport(status=Status.error, timeout=ran.timed_out, message=lost_run(ran, limit), **timings)
    events = read_events(got.contents[0])
    record = read_record(got.contents[1], token)
    declared = [c.name for c in case_texts(task)]
    status, forgery, why = judged(events, record, got.exit_code, declared)
    report = TestReport(status=status, message=why, tests=_tests(events, declared, task), exit_code=got.exit_code,
                        output_truncated=got.truncated(0), **timings).overruled(forgery)
    if transcript and not report.passed:
        report.transcript = _clean(console(events, _import_path(task), got.exit_code), task)
    return report


def _tests(events: Events, declared: list[str], task: Task) -> list[TestCaseResult]:
    tests = tests_of(events, declared)
    for t in tests:
        t.message = _clean(t.message, task) if t.message else t.message
    return tests


def drop_build(task: Task, session: SandboxSession) -> None:
    sub = _subdir(task)
    session.exec(["rm", "-rf", f"/build/{sub}", f"/build/{sub}.test", f"/build/{sub}.alone"], role=Role.builder,
                 timeout_s=60)
