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
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any, Mapping

from ...errors import SandboxUnavailable
from ...records import Status, TestCaseResult, TestReport, forged_report
from ...sandbox.base import ExecResult, Role, SandboxSession
from ...sandbox.capture import Kept, capture, lost_run
from ...staging import stage_files
from ...task import Task
from ..compared import decided_by_the_solution
from .cases import default_features, package_name, test_functions
from .compared_types import LISTING_CAP, RUST, compared_by
from .console import console, untimed
from ..token_screen import refused_report
from .screen import code_tokens, declared_names, refusals
from .verdict import Binary, judged, read_events, read_log, tests_of

_HOME = "/build/.cargo-home"
_TARGET = "/build/.cargo-target"  # every task's of the session (drop_build takes a task's out): the crates they share are built once
# The reference's and the stub's builds, read for what their tests compare only: cargo names a
# package's binaries alike wherever the package lies, so in _TARGET they would replace the
# candidate's before its run.
_SIDE_TARGET = "/build/.cargo-target-side"
_MARK = "@@harness-artifacts@@"
_COMPARED = "@@harness-compared@@"
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
    test_words = {t[1] for rel in task.test_files for t in code_tokens(task.read(rel).decode("utf-8", "replace"))}
    reads = "fs" in test_words
    own = declared_names(task.reference_files()) | declared_names(task.stub_files())
    refused = refusals({rel: data for rel, data in files.items() if rel not in shipped}, may_read_files=reads,
                       may_declare=own)
    if refused:
        return refused_report(refused, transcript, common)
    built = _build(session, _subdir(task), files)
    build_lines = _as_cargo_test_prints(_clean(built.lines, task))
    if built.failed:
        why = "the build timed out" if built.ran.timed_out else build_lines.strip() or f"the build failed ({built.ran.exit_code})"
        report = TestReport(status=Status.error, message=why, build_seconds=round(built.ran.seconds, 3), **common)
        if transcript:
            report.transcript = untimed(build_lines)
        return report
    forgery = _compared_findings(task, session, files, built.listing, asserts=bool(test_words & {"assert_eq", "assert_ne"}))
    if forgery:
        return forged_report(forgery, transcript=transcript, console=untimed(build_lines) if transcript else None,
                             built=True, build_seconds=round(built.ran.seconds, 3), **common)
    return _run(task, session, built.executables, build_lines, built.ran.seconds, transcript, time_limit_s, common)


@dataclass
class _Built:
    ran: ExecResult
    lines: str                           # what cargo printed
    marked: bool                         # the script reached its listing of the artifacts
    executables: list[tuple[str, str]]   # (target, executable) of each test binary
    listing: str | None                  # the test targets' assertions (compared_types.py), None where cut

    @property
    def failed(self) -> bool:
        return self.ran.timed_out or self.ran.exit_code != 0 or not self.marked


def _build(session: SandboxSession, sub: str, files: Mapping[str, bytes], target: str = _TARGET) -> _Built:
    """Stage `files` as the package `sub` and build its test binaries into the session's
    target folder; then list, from the test targets' binaries (not the lib's own unit tests),
    the instantiations of `assert_failed` by which their assertions compare."""
    session.stage(sub, files)
    build = f"/build/{sub}"
    script = (f"[ -d {_HOME} ] || {{ mkdir -p {_HOME} && cp /opt/harness/cargo/config.toml {_HOME}/; }}; "
              f"[ -d {target} ] || cp -a /opt/harness/cargo-target {target}; "
              f"rm -rf {build} && mkdir -p {build} && cp -R {session.src_root}/{sub}/. {build}/ && cd {build} "
              f"&& export CARGO_HOME={_HOME} CARGO_TARGET_DIR={target} "
              f"&& {{ cargo test --no-run --offline --message-format=json-render-diagnostics 2>&1 >.artifacts; code=$?; }}; "
              # the runner runs the binaries in a copy of the package (the builder's umask keeps both from it)
              f"chmod -R go+rX . && chmod go+x {target} {target}/debug {target}/debug/deps 2>/dev/null; "
              f"for f in $(grep -o '\"executable\":\"[^\"]*\"' .artifacts | cut -d'\"' -f4); do chmod go+rx \"$f\"; done; "
              f"echo {_MARK}; grep -F '\"executable\":\"/' .artifacts; echo {_COMPARED}; "
              f"for f in $(grep -F '\"kind\":[\"test\"]' .artifacts | grep -o '\"executable\":\"[^\"]*\"' | cut -d'\"' -f4); "
              f"do nm -C --defined-only \"$f\"; done 2>/dev/null | grep -F 'core::panicking::assert_failed::<' "
              f"| sed 's/^[0-9a-f]* [A-Za-z] //' | sort -u | head -c {LISTING_CAP}; exit $code")
    ran = session.exec(["sh", "-c", script], role=Role.builder, timeout_s=session.limits.build_timeout_s)
    output = ran.output.decode("utf-8", "replace")
    cut = output.rfind(f"{_MARK}\n")
    if cut < 0:
        return _Built(ran, output, False, [], None)
    listed = output.find(f"{_COMPARED}\n", cut)
    listing = output[listed + len(_COMPARED) + 1:] if listed >= 0 and not ran.truncated else None
    if listing is not None and len(listing.encode()) >= LISTING_CAP:
        listing = None
    return _Built(ran, output[:cut], True, _executables(output[cut:listed if listed >= 0 else None]), listing)


def _compared_findings(task: Task, session: SandboxSession, files: Mapping[str, bytes], listing: str | None, *,
                       asserts: bool) -> list[str]:
    """The comparisons of the task's own tests that the solution decides (compared_types.py);
    `asserts`: the tests use `assert_eq!` or `assert_ne!`."""
    if listing is None:
        return ["what the tests compare could not be read from their build"]
    mine = RUST.operand_types(listing)
    if not mine and asserts:
        # At opt-level 0 every assert_eq! keeps its instantiation; none means it was read wrong.
        return ["the tests' assert_eq! left no trace in their build, so what they compare is unknown"]
    if all(RUST.library_only(t) for t in mine):
        return []

    own = listing

    def compared(which: str, solution: Mapping[str, bytes]) -> frozenset[str] | None:
        staged, _ = _candidate_files(task, solution)

        def read() -> str | None:
            if dict(files) == staged:
                return own
            side = _build(session, f"{_subdir(task)}.{which}", staged, _SIDE_TARGET)
            return None if side.failed else side.listing

        return compared_by(task, which, session.backend, read)

    reference = compared("reference", task.reference_files())
    if reference is None:
        return ["the tests did not build against the reference, so what they compare is unknown"]
    unexpected = RUST.unexpected(mine, reference)
    if unexpected:
        unexpected = RUST.unexpected(unexpected, reference | (compared("stub", task.stub_files()) or frozenset()))
    return [decided_by_the_solution(t, reference) for t in unexpected]


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
    found: list[str] = []
    for target in (_TARGET, _SIDE_TARGET):
        found += [f"{target}/debug/.fingerprint/{package}-*"] if package else []
        for crate in sorted(c for c in crates if _NAME.fullmatch(c)):
            found += [f"{target}/debug/deps/{crate}-*", f"{target}/debug/deps/lib{crate}-*",
                      f"{target}/debug/.fingerprint/{crate}-*", f"{target}/debug/incremental/{crate}-*"]
    return found


def drop_build(task: Task, session: SandboxSession) -> None:
    sub = _subdir(task)
    session.exec(["sh", "-c", f"rm -rf /build/{sub} /build/{sub}.reference /build/{sub}.stub {' '.join(_artifacts(task))}"],
                 role=Role.builder, timeout_s=60)
