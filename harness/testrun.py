"""One build-and-test of a workspace against a task in a sandbox session.

The sandbox gets the task's protected files (tests, build files, anything that is not a
solution file) from the task itself and only the solution files from the workspace; a
workspace that changed a protected file is flagged as tampered and overruled. The build
tree stays in the session, configured once per task, so a round in a warm session
recompiles only what changed."""

from __future__ import annotations

import re
import shlex
import signal
from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping

from .catch2 import parse_catch2_xml
from .records import Status, TestCaseResult, TestMain, TestReport
from .sandbox.base import ExecResult, Role, SandboxSession
from .task import Task

_NOISE = re.compile(
    r"^(\[\s*\d+%\]|g?make(\[\d+\])?: |Consolidate compiler generated dependencies|-- )"
)


def stage_files(task: Task, workspace: Path | Mapping[str, bytes]) -> tuple[dict[str, bytes], list[str]]:
    """The files the sandbox builds, and the protected files the workspace tried to change."""
    if isinstance(workspace, Mapping):
        provided = dict(workspace)
    else:
        workspace = Path(workspace)
        provided = {}
        for p in workspace.rglob("*"):
            if p.is_file() and not p.is_symlink():
                provided[p.relative_to(workspace).as_posix()] = p.read_bytes()
    files: dict[str, bytes] = {}
    tampered = []
    for rel in task.protected_files:
        original = task.read(rel)
        files[rel] = original
        if rel in provided and provided[rel] != original:
            tampered.append(rel)
    stubs = task.stub_files()
    for rel in task.solution_files:
        if rel in provided:
            files[rel] = provided[rel]
        elif rel in stubs:
            files[rel] = stubs[rel]
    return files, sorted(tampered)


def clean_log(text: str, session: SandboxSession, slug: str) -> str:
    """Compiler output as a person would want to read it: build-system chatter dropped,
    sandbox paths made relative to the exercise."""
    text = text.replace(f"{session.src_root}/{slug}/", "").replace(f"{session.build_root}/{slug}/", "build/")
    text = text.replace(str(session.staging) + f"/{slug}/", "")
    lines = [ln for ln in text.splitlines() if not _NOISE.match(ln)]
    return "\n".join(lines).strip()


def signal_name(code: int) -> str | None:
    """Shells report death by signal N as 128+N; Popen as -N."""
    num = -code if code < 0 else code - 128 if 128 < code < 128 + 65 else None
    if num is None:
        return None
    try:
        return signal.Signals(num).name
    except ValueError:
        return f"signal {num}"


def linked_test_main(task: Task, session: SandboxSession) -> TestMain:
    """The precompiled main a task's test binary can link in this session, or the task's
    own. Compiling Catch2's main costs several times the rest of a round, so a fresh build
    tree must not pay it: our tasks take the harness's main, upstream exercises the
    toolchain's Catch2WithMain through their own EXERCISM_TEST_SUITE branch."""
    if task.links_harness_main and session.test_main:
        return TestMain.harness
    if task.has_exercism_test_suite_branch and session.catch2_with_main:
        return TestMain.catch2
    return TestMain.task


@dataclass(frozen=True)
class BuildTree:
    """Where a session stages and builds a task: the test run's own tree (the task's slug,
    the session's test main), or another one beside it (a probe's), with its own test main
    and cache settings for CMake."""

    name: str
    test_main: str | None = None  # None: the session's own
    cmake_args: tuple[str, ...] = ()

    @staticmethod
    def of(task: Task, tree: "BuildTree | None") -> "BuildTree":
        return tree or BuildTree(task.slug)


def configure_steps(task: Task, session: SandboxSession, tree: BuildTree | None = None) -> list[str]:
    """The shell commands that (re)configure the build tree, empty when this session
    already configured it for this task content. Run them as the builder, joined with
    `&&`, and report how it went with `note_configured`."""
    tree = BuildTree.of(task, tree)
    if session.configured.get(tree.name) == task.content_hash:
        return []
    src = f"{session.src_root}/{tree.name}"
    build = f"{session.build_root}/{tree.name}"
    # gold links a test binary in half the time of the default linker, same result.
    args = ["cmake", "-S", src, "-B", build, "-DEXERCISM_RUN_ALL_TESTS=ON", "-DCMAKE_EXE_LINKER_FLAGS=-fuse-ld=gold"]
    if tree.test_main:  # a probe's driver in place of any test main
        args.append(f"-DHARNESS_TEST_MAIN={tree.test_main}")
    else:
        main = linked_test_main(task, session)
        if main is TestMain.harness:
            args.append(f"-DHARNESS_TEST_MAIN={session.test_main}")
        elif main is TestMain.catch2:
            args.append("-DEXERCISM_TEST_SUITE=ON")
    args += tree.cmake_args
    return [f"rm -rf {shlex.quote(build)}", shlex.join(args)]


def build_step(task: Task, session: SandboxSession, tree: BuildTree | None = None) -> str:
    """The shell command that builds the test binary in a configured build tree."""
    jobs = max(1, int(session.limits.cpus))
    build = f"{session.build_root}/{BuildTree.of(task, tree).name}"
    return shlex.join(["cmake", "--build", build, "--target", task.slug, "--", f"-j{jobs}"])


def note_configured(task: Task, session: SandboxSession, ok: bool, tree: BuildTree | None = None) -> None:
    name = BuildTree.of(task, tree).name
    if ok:
        session.configured[name] = task.content_hash
    else:
        session.configured.pop(name, None)


_CONFIGURE_FAILED = 97


def drop_build(task: Task, session: SandboxSession) -> None:
    """Free a task's build tree in the session: build space is a fixed-size tmpfs, and a
    session that goes through a whole suite would otherwise keep every task's."""
    session.exec(["rm", "-rf", f"{session.build_root}/{task.slug}"], role=Role.builder, timeout_s=60)
    session.configured.pop(task.slug, None)


def configure_and_build(task: Task, session: SandboxSession, tree: BuildTree | None = None) -> ExecResult:
    configure = configure_steps(task, session, tree)
    script = build_step(task, session, tree)
    if configure:
        script = f"{' && '.join(configure)} || exit {_CONFIGURE_FAILED}; {script}"
    result = session.exec(["sh", "-c", script], role=Role.builder, timeout_s=session.limits.build_timeout_s)
    # A solution that does not compile leaves the configured tree (and the compiled test
    # unit) good for the next round; only a failed configure or a lost tree starts over.
    note_configured(task, session, result.exit_code is not None and result.exit_code != _CONFIGURE_FAILED, tree)
    return result


def _run_binary(task: Task, session: SandboxSession) -> tuple[ExecResult, ExecResult | None]:
    binary = shlex.quote(f"{session.build_root}/{task.slug}/{task.slug}")
    scratch = shlex.quote(session.scratch_root)
    reporter = "harness-xml" if linked_test_main(task, session) is TestMain.harness else "xml"
    script = (
        f"cd {scratch} && find . -mindepth 1 -delete 2>/dev/null; "
        f"{binary} --list-test-names-only >.names 2>/dev/null; "
        # Catch2's XML streams out through fd 3 (a pipe this shell owns, so the runner may
        # reopen it as /dev/fd/3); the program's own output goes to a file, so printing
        # cannot corrupt the report.
        f"{{ {binary} --reporter {reporter} --out /dev/fd/3 3>&1 >.out 2>&1; echo $? >.code; }} | cat"
    )
    # The report is not the program's output: it gets room for every test's capped output.
    run = session.exec(["sh", "-c", script], role=Role.runner, timeout_s=session.limits.timeout_s,
                       cap=4 * session.limits.output_cap_bytes)
    if run.timed_out:
        return run, None
    keep = max(4096, session.limits.output_cap_bytes - 65536)
    collect = session.exec(
        # `kill -9 -1` first: a child the candidate forked must not outlive its run and
        # meddle with the next one (the runner user owns nothing else).
        ["sh", "-c", f"kill -9 -1 2>/dev/null; cd {scratch} && cat .code; printf '\\0'; cat .names; printf '\\0'; head -c {keep} .out; "
                     f"printf '\\0'; stat -c %s .out"],
        role=Role.runner, timeout_s=30,
    )
    return run, collect


@dataclass
class _Collected:
    exit_code: int | None = None
    names: list[str] = field(default_factory=list)
    output: str = ""
    truncated: bool = False


def _collected(collect: ExecResult | None) -> _Collected:
    """The binary's exit code, the test names, its own output and whether that was cut."""
    if collect is None or collect.exit_code != 0:
        return _Collected()
    parts = collect.output.split(b"\0")
    if len(parts) < 4:
        return _Collected()
    try:
        code = int(parts[0].strip())
    except ValueError:
        code = None
    try:
        size = int(parts[3].strip() or 0)
    except ValueError:
        size = 0
    return _Collected(
        exit_code=code,
        names=[n for n in parts[1].decode(errors="replace").splitlines() if n.strip()],
        output=parts[2].decode(errors="replace"),
        truncated=size > len(parts[2]) or collect.truncated,
    )


def run_tests(task: Task, workspace: Path | Mapping[str, bytes], session: SandboxSession) -> TestReport:
    files, tampered = stage_files(task, workspace)
    session.stage(task.slug, files)
    backend = type(session).__name__.removesuffix("Session").lower()
    common = dict(tampered=tampered, backend=backend, test_main=linked_test_main(task, session))

    build = configure_and_build(task, session)
    build_log = build.output.decode(errors="replace")
    if build.timed_out:
        return TestReport(
            status=Status.error, timeout=True, build_seconds=round(build.seconds, 3),
            message=f"the build timed out after {session.limits.build_timeout_s:g} s\n"
            + clean_log(build_log, session, task.slug),
            **common,
        )
    if build.exit_code != 0:
        return TestReport(
            status=Status.error, build_seconds=round(build.seconds, 3), exit_code=build.exit_code,
            message=clean_log(build_log, session, task.slug) or f"the build failed (exit {build.exit_code})",
            **common,
        )

    run, collect = _run_binary(task, session)
    parsed = parse_catch2_xml(run.output)
    got = _collected(collect)
    names, output, exit_code = got.names, got.output, got.exit_code
    truncated = run.truncated or got.truncated

    tests = list(parsed.cases)
    seen = {t.name for t in tests}
    timings = dict(built=True, build_seconds=round(build.seconds, 3), run_seconds=round(run.seconds, 3))
    sig = signal_name(exit_code) if exit_code is not None else None

    if run.timed_out:
        why = f"the test run timed out after {session.limits.timeout_s:g} s and was killed"
    elif sig is not None:
        last = tests[-1].name if tests else None
        why = f"the test binary was killed by {sig}" + (f" during or after '{last}'" if last else "")
    elif parsed.unreadable and not tests:
        why = f"no test results: {parsed.unreadable} (exit code {exit_code})"
    elif not parsed.complete or any(n not in seen for n in names):
        why = f"the test binary stopped before running every test (exit code {exit_code})"
    elif not tests:
        why = "the test binary reported no test cases"
    else:
        why = None

    if why is not None:
        for n in names:
            if n not in seen:
                tests.append(TestCaseResult(name=n, status=Status.error, message=f"not run: {why}"))
        return TestReport(
            status=Status.error, message=why, tests=tests, timeout=run.timed_out, exit_code=exit_code,
            output=output or None, output_truncated=truncated, **timings, **common,
        )
    all_passed = all(t.status is Status.passed for t in tests)
    if all_passed and exit_code != 0:
        return TestReport(
            status=Status.error, tests=tests, exit_code=exit_code,
            message=f"every test passed but the test binary exited with code {exit_code}",
            output=output or None, output_truncated=truncated, **timings, **common,
        )
    return TestReport(
        status=Status.passed if all_passed else Status.failed, tests=tests, exit_code=exit_code,
        output=output or None, output_truncated=truncated, **timings, **common,
    )
