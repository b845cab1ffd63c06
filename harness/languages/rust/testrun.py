"""One Rust test round in a session: the screen (screen.py) decides first; the builder lays
the staged package out in its build tree and builds every test binary with `cargo test --no-run`
offline against the image's Debian registry, into one target folder for the session (the
crates an exercise names come built from the image, and a session's later rounds reuse
what its first built); the runner runs each binary as cargo would (`--include-ignored`, in
a copy of the package in its scratch), with libtest's JSON events on standard output and
its log file beside them (verdict.py judges them)."""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path, PurePosixPath
from typing import Any, Mapping

from ...errors import SandboxUnavailable
from ...records import Status, TestCaseResult, TestReport
from ...sandbox.base import Role, SandboxSession
from ...sandbox.capture import Kept, capture, lost_run
from ...staging import stage_files
from ...task import Task
from .cases import default_features, package_name, test_functions
from .console import console, untimed
from ..token_screen import refused_report
from .screen import code_tokens, refusals
from .verdict import Binary, judged, read_events, read_log, tests_of

_HOME = "/build/.cargo-home"
_TARGET = "/build/.cargo-target"  # every task's of the session (drop_build takes a task's out): the crates they share are built once
_MARK = "@@harness-artifacts@@"
_BUILT_PROFILE = "`test` profile [unoptimized] target(s)"
_SHOWN_PROFILE = "`test` profile [unoptimized + debuginfo] target(s)"
_NAME = re.compile(r"[A-Za-z0-9_]+")  # a crate name safe in a glob of the shell
_EVENTS_CAP = 2 * 1024 * 1024
_LOG_CAP = 256 * 1024
_ERR_CAP = 64 * 1024


def _subdir(task: Task) -> str:
    return f"rust-{task.exercise}"


def _clean(text: str, task: Task) -> str:
    """The build folder named as the exercise's, as Aider's benchmark names its own."""
    return text.replace(f"/build/{_subdir(task)}", task.exercise)


def _as_cargo_test_prints(build_lines: str) -> str:
    """What `cargo test` prints of the build: `--no-run`'s own lines on each test binary left
    out, and the profile named as the exercise's build, which keeps debug info, names it (the
    image's builds leave it out, assets/image.dockerfile: cargo's own line, which no candidate
    prints, as nothing of the candidate's runs in the build)."""
    return "".join(line.replace(_BUILT_PROFILE, _SHOWN_PROFILE) if line.startswith("    Finished ") else line
                   for line in build_lines.splitlines(keepends=True) if not line.lstrip().startswith("Executable "))


def _candidate_files(task: Task, workspace: Path | Mapping[str, bytes]) -> tuple[dict[str, bytes], list[str]]:
    """The files to build, and those refused as tampering: the task's own manifest whatever
    the workspace says (upstream lists it as a solution file), and of the files the task does
    not ship only Rust sources under src/ (cargo builds every tests/, benches/ and examples/
    file it finds, and a build script at the top)."""
    files, tampered = stage_files(task, workspace)
    for rel in list(files):
        if task.is_build_file(rel) and (task.path / rel).is_file() and files[rel] != task.read(rel):
            files[rel] = task.read(rel)
            tampered.append(rel)
    shipped = set(task.shipped_files) | set(task.solution_files)
    created = sorted(f for f in files if f not in shipped and not (f.startswith("src/") and f.endswith(".rs")))
    files = {rel: data for rel, data in files.items() if rel not in created}
    return files, sorted({*tampered, *created})


def run_tests(task: Task, workspace: Path | Mapping[str, bytes], session: SandboxSession, *,
              transcript: bool = False, time_limit_s: float | None = None) -> TestReport:
    """Test a workspace. `transcript` keeps, for a run that did not pass, the console output
    as `cargo test -- --include-ignored` prints it (TestReport.transcript); `time_limit_s`
    takes the place of the sandbox's run limit."""
    session.serve(task.layout.name)
    if session.backend != "docker":
        raise SandboxUnavailable(f"Rust exercises run in the Docker sandbox only, not the {session.backend} backend")
    files, tampered = _candidate_files(task, workspace)
    common: dict[str, Any] = dict(tampered=tampered, backend=session.backend)
    shipped = set(task.shipped_files) - set(task.solution_files)
    reads = any(t[1] == "fs" for rel in task.test_files for t in code_tokens(task.read(rel).decode("utf-8", "replace")))
    refused = refusals({rel: data for rel, data in files.items() if rel not in shipped}, may_read_files=reads)
    if refused:
        return refused_report(refused, transcript, common)
    sub = _subdir(task)
    session.stage(sub, files)
    build = f"/build/{sub}"
    script = (f"[ -d {_HOME} ] || {{ mkdir -p {_HOME} && cp /opt/harness/cargo/config.toml {_HOME}/; }}; "
              f"[ -d {_TARGET} ] || cp -a /opt/harness/cargo-target {_TARGET}; "
              f"rm -rf {build} && mkdir -p {build} && cp -R {session.src_root}/{sub}/. {build}/ && cd {build} "
              f"&& export CARGO_HOME={_HOME} CARGO_TARGET_DIR={_TARGET} "
              f"&& {{ cargo test --no-run --offline --message-format=json-render-diagnostics 2>&1 >.artifacts; code=$?; }}; "
              # the runner runs the binaries in a copy of the package (the builder's umask keeps both from it)
              f"chmod -R go+rX . && chmod go+x {_TARGET} {_TARGET}/debug {_TARGET}/debug/deps 2>/dev/null; "
              f"for f in $(grep -o '\"executable\":\"[^\"]*\"' .artifacts | cut -d'\"' -f4); do chmod go+rx \"$f\"; done; "
              f"echo {_MARK}; grep -F '\"executable\":\"/' .artifacts; exit $code")
    built = session.exec(["sh", "-c", script], role=Role.builder, timeout_s=session.limits.build_timeout_s)
    output = built.output.decode("utf-8", "replace")
    cut = output.rfind(f"{_MARK}\n")
    build_lines = _as_cargo_test_prints(_clean(output[:max(cut, 0)], task))
    if built.timed_out or built.exit_code != 0 or cut < 0:
        why = "the build timed out" if built.timed_out else build_lines.strip() or f"the build failed ({built.exit_code})"
        report = TestReport(status=Status.error, message=why, build_seconds=round(built.seconds, 3), **common)
        if transcript:
            report.transcript = untimed(build_lines)
        return report
    executables = _executables(output[cut:])
    return _run(task, session, executables, build_lines, built.seconds, transcript, time_limit_s, common)


def _executables(artifacts: str) -> list[tuple[str, str]]:
    """(target, executable) of each test binary, in cargo's order: the lib's unit tests, then
    the tests/ files' by name."""
    found: list[tuple[str, str]] = []
    for line in artifacts.splitlines()[1:]:
        try:
            art = json.loads(line)
            target, exe = art["target"], art["executable"]
            kinds, name = target["kind"], target["name"]
        except (ValueError, KeyError, TypeError):
            continue
        if isinstance(exe, str) and exe.startswith(f"{_TARGET}/debug/deps/") and isinstance(name, str):
            found.append(("lib" if "lib" in kinds else name, exe))
    return sorted(found, key=lambda te: (te[0] != "lib", te[0]))


def _declared(task: Task) -> dict[str, list[str]]:
    enabled = default_features(task)
    return {PurePosixPath(rel).stem: [name for name, _, _ in test_functions(task.read(rel).decode("utf-8", "replace"),
                                                                           enabled)]
            for rel in task.test_files}


def _run(task: Task, session: SandboxSession, executables: list[tuple[str, str]], build_lines: str,
         build_seconds: float, transcript: bool, time_limit_s: float | None, common: dict[str, Any]) -> TestReport:
    limit = session.limits.timeout_s if time_limit_s is None else time_limit_s
    # As cargo runs them: in the package's folder (a copy the runner may write: grep's tests
    # write files there, macros' run cargo on the files under tests/), with cargo offline.
    steps = "".join(f"RUSTC_BOOTSTRAP=1 {shlex.quote(exe)} --include-ignored -Z unstable-options --format json "
                    f"--logfile ../.log{i} >../.events{i} 2>../.err{i}; echo $? >../.code{i}; "
                    for i, (_, exe) in enumerate(executables))
    run = (f"mkdir package .cargo-home && cp /opt/harness/cargo/config.toml .cargo-home/ "
           f"&& cp -R /build/{_subdir(task)}/. package/ && (cd package && CARGO_HOME=$PWD/../.cargo-home "
           f"exec timeout -s KILL {limit:g} sh -c {shlex.quote(steps)}); code=$?")
    kept = [k for i in range(len(executables)) for k in (
        Kept(f".events{i}", _EVENTS_CAP), Kept(f".log{i}", _LOG_CAP), Kept(f".err{i}", _ERR_CAP), Kept(f".code{i}", 16))]
    ran, got = capture(session, run, kept, limit + 30)
    timings = dict(built=True, build_seconds=round(build_seconds, 3), run_seconds=round(ran.seconds, 3), **common)
    if got is None:
        return TestReport(status=Status.error, timeout=ran.timed_out, message=lost_run(ran, limit), **timings)
    binaries, shown = [], []
    for i, (target, exe) in enumerate(executables):
        events, log, err, code = got.contents[4 * i:4 * i + 4]
        if not code.strip():
            continue  # the time limit ended the run before this binary
        b = Binary(target=target, exit_code=int(code.strip()) if code.strip().isdigit() else None)
        b.log, b.log_unreadable = read_log(log)
        read_events(b, events)
        binaries.append(b)
        shown.append((b, PurePosixPath(exe).name, _clean(err.decode("utf-8", "replace"), task)))
    declared = _declared(task)
    status, forgery, why = judged(binaries, declared)
    timed_out = got.exit_code == 137 or (got.exit_code is not None and got.exit_code == 124)
    report = TestReport(status=status, message=why or ("the tests timed out" if timed_out else None),
                        tests=[_cleaned(t, task) for t in tests_of(binaries, declared)], exit_code=got.exit_code,
                        timeout=timed_out, output_truncated=any(got.truncated(4 * i) for i in range(len(executables))),
                        **timings).overruled(forgery)
    if transcript and not report.passed:
        report.transcript = _clean(console(build_lines, shown), task)
    return report


def _cleaned(test: TestCaseResult, task: Task) -> TestCaseResult:
    test.message = _clean(test.message, task) if test.message else test.message
    return test


def _artifacts(task: Task) -> list[str]:
    """Where the shared target folder keeps what the task's builds made: its package's and
    its test targets' files, by the names cargo gives them."""
    package = package_name(task)
    crates = {n.replace("-", "_") for n in [package or "", *(PurePosixPath(rel).stem for rel in task.test_files)]}
    found = [f"{_TARGET}/debug/.fingerprint/{package}-*"] if package else []
    for crate in sorted(c for c in crates if _NAME.fullmatch(c)):
        found += [f"{_TARGET}/debug/deps/{crate}-*", f"{_TARGET}/debug/deps/lib{crate}-*",
                  f"{_TARGET}/debug/.fingerprint/{crate}-*", f"{_TARGET}/debug/incremental/{crate}-*"]
    return found


def drop_build(task: Task, session: SandboxSession) -> None:
    session.exec(["sh", "-c", f"rm -rf /build/{_subdir(task)} {' '.join(_artifacts(task))}"], role=Role.builder,
                 timeout_s=60)
