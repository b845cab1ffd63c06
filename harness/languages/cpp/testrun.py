"""One build-and-test of a C++ workspace against a task in a sandbox session: CMake
configures the task's build once per session, make recompiles what changed, the Catch2
binary runs as the runner, and the verdict is read from the channel and the XML report.

What is staged comes from harness/staging.py. The build tree stays in the session,
configured once per task, so a round in a warm session recompiles only what changed."""

from __future__ import annotations

import os
import re
import secrets
import shlex
from dataclasses import dataclass, field, replace
from pathlib import Path, PurePosixPath
from typing import Any, Callable, Mapping

from .catch2 import CatchRun, parse_catch2_xml
from .catch_pch import precompiled_unit
from .cmake import has_exercism_test_suite_branch, links_harness_main
from .policy import judge_build, plan_screen
from .verdict_channel import CHANNEL_CAP, ChannelKeys, judged, read_channel
from .mutants import count_test_cases
from ...records import Status, TestCaseResult, TestMain, TestReport, forged_report
from ...sandbox.base import ExecResult, Role, SandboxSession
from ...sandbox.capture import Kept, capture, killed_at_limit
from ...staging import signal_name, stage_files
from ...task import Task

# Build-system chatter: progress lines, make entering and leaving folders, CMake's status
# lines. make's own failing lines ("make[2]: *** ... Error 1") are kept.
_NOISE = re.compile(
    r"^(\[\s*\d+%\]|g?make(\[\d+\])?: (?!\*\*\*)|Consolidate compiler generated dependencies|-- )"
)
def exercise_paths(text: str, session: SandboxSession, slug: str) -> str:
    """Sandbox paths as they read in an exercise checkout built the Exercism way: the
    sources as `<slug>/...`, the build tree as `<slug>/build/...` (what Aider's benchmark
    makes of its own paths when it cleans test output)."""
    text = text.replace(f"{session.build_root}/{slug}", f"{slug}/build")
    text = text.replace(f"{session.src_root}/{slug}", slug)
    return text.replace(f"{session.staging}/{slug}", slug)


def clean_log(text: str, session: SandboxSession, slug: str) -> str:
    """Compiler output as a person would want to read it: build-system chatter dropped,
    sandbox paths made relative to the exercise."""
    text = text.replace(f"{session.src_root}/{slug}/", "").replace(f"{session.build_root}/{slug}/", "build/")
    text = text.replace(str(session.staging) + f"/{slug}/", "")
    lines = [ln for ln in text.splitlines() if not _NOISE.match(ln)]
    return "\n".join(lines).strip()


def linked_test_main(task: Task, session: SandboxSession) -> TestMain:
    """The precompiled main a task's test binary can link in this session, or the task's
    own. Compiling Catch2's main costs several times the rest of a round, so a fresh build
    tree must not pay it: our tasks take the harness's main, upstream exercises the
    toolchain's Catch2WithMain through their own EXERCISM_TEST_SUITE branch."""
    if links_harness_main(task) and session.test_main:
        return TestMain.harness
    if has_exercism_test_suite_branch(task) and session.catch2_with_main:
        return TestMain.catch2
    return TestMain.task


def uses_verdict_channel(task: Task, session: SandboxSession) -> bool:
    """Whether the task's test binary links the harness's verdict channel, which then
    decides its runs (languages/cpp/verdict_channel.py): where it links a main made from
    the image's own Catch2 (ours, or the toolchain's Catch2WithMain), so the channel's
    object, compiled against that Catch2, fits it. A task that builds its own main may
    bring another Catch2; its runs are judged by their report, as before."""
    return session.verdict_channel is not None and linked_test_main(task, session) is not TestMain.task


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
        return tree or BuildTree(task.exercise)


def configure_steps(task: Task, session: SandboxSession, tree: BuildTree | None = None) -> list[str]:
    """The shell commands that (re)configure the build tree, empty when this session
    already configured it for this task content. Run them as the builder, joined with
    `&&`, and report how it went with `note_configured`."""
    tree = BuildTree.of(task, tree)
    if session.configured.get(tree.name) == task.content_hash:
        return []
    src = f"{session.src_root}/{tree.name}"
    build = f"{session.build_root}/{tree.name}"
    # gold links a test binary in half the time of the default linker, same result. The
    # Debug build type Exercism's CMakeLists set means -g, and nobody steps through a test
    # run: without debug information a test unit compiles in two thirds of the time, and
    # GCC's code (so every outcome and message) is the same with or without it.
    # The compile commands are what the screen preprocesses each unit with (languages/cpp/policy.py).
    args = ["cmake", "-S", src, "-B", build, "-DEXERCISM_RUN_ALL_TESTS=ON", "-DCMAKE_EXE_LINKER_FLAGS=-fuse-ld=gold",
            "-DCMAKE_CXX_FLAGS_DEBUG=", "-DCMAKE_EXPORT_COMPILE_COMMANDS=ON"]
    if session.cxx_launcher:  # every tree's compiles: the image's compile cache is there
        args.append(f"-DCMAKE_CXX_COMPILER_LAUNCHER={session.cxx_launcher}")
    if tree.test_main:  # a probe's driver in place of any test main
        args.append(f"-DHARNESS_TEST_MAIN={tree.test_main}")
    else:
        main = linked_test_main(task, session)
        if main is TestMain.harness:
            args.append(f"-DHARNESS_TEST_MAIN={session.test_main}")
        elif main is TestMain.catch2:
            args.append("-DEXERCISM_TEST_SUITE=ON")
        if uses_verdict_channel(task, session):
            args.append(f"-DCMAKE_PROJECT_INCLUDE={session.verdict_channel}")
    args += tree.cmake_args
    # CMake skips detecting the compiler in a tree that holds its detection already.
    tree_dir = shlex.quote(build)
    seed = [f"mkdir -p {tree_dir}", f"cp -R {shlex.quote(session.cmake_seed)}/. {tree_dir}/"] if session.cmake_seed else []
    return [f"rm -rf {tree_dir}", *seed, shlex.join(args)]


def build_step(task: Task, session: SandboxSession, tree: BuildTree | None = None,
               catch_pch: tuple[str, str] | None = None) -> str:
    """The shell command that builds the test binary in a configured build tree, naming the
    tree's sources to the image's launcher (its compile cache keys every file there). With
    `catch_pch` (the test unit and the header it reads first, as staged), the unit may
    take Catch2 precompiled (languages/cpp/catch_pch.py, the image's harness-cxx), and the command's
    last lines say whether the unit linked did, and whether this build compiled it so."""
    jobs = max(1, int(session.limits.cpus))
    build = f"{session.build_root}/{BuildTree.of(task, tree).name}"
    src = f"{session.src_root}/{BuildTree.of(task, tree).name}"
    command = f"HARNESS_SRC_TREE={shlex.quote(src)} " + shlex.join(
        ["cmake", "--build", build, "--target", task.exercise, "--", f"-j{jobs}"])
    if catch_pch is None:
        return command
    unit, header = (shlex.quote(f"{src}/{rel}") for rel in catch_pch)
    marker = shlex.quote(f"{PurePosixPath(catch_pch[0]).name}.o.catch-pch")
    b = shlex.quote(build)
    return (f"touch {b}/.harness-build-start && rm -f {b}/.harness-pch-fresh && "
            f"HARNESS_PCH_UNIT={unit} HARNESS_PCH_HEADER={header} HARNESS_PCH_FRESH={b}/.harness-pch-fresh "
            f"{command}; code=$?; "
            f"[ -n \"$(find {b} -name {marker} -print -quit)\" ] && echo '{_PRECOMPILED}'; "
            f"[ -e {b}/.harness-pch-fresh ] && echo '{_PRECOMPILED_NOW}'; exit $code")


def _undo_build(task: Task, session: SandboxSession) -> str:
    """Shell that removes what the last build (one of build_step's with `catch_pch`)
    compiled, so that the next one compiles the same units again, the same way."""
    b = shlex.quote(f"{session.build_root}/{task.exercise}")
    return (f"find {b} -type f -newer {b}/.harness-build-start \\( -name '*.o' -o -name '*.o.d' -o -name '*.catch-pch' "
            f"-o -name {shlex.quote(task.exercise)} \\) -delete 2>/dev/null")


def note_configured(task: Task, session: SandboxSession, ok: bool, tree: BuildTree | None = None) -> None:
    name = BuildTree.of(task, tree).name
    if ok:
        session.configured[name] = task.content_hash
    else:
        session.configured.pop(name, None)


_CONFIGURE_FAILED = 97


def drop_build(task: Task, session: SandboxSession, tree: "BuildTree | None" = None) -> None:
    """Free a task's build tree (its test run's, or `tree`) in the session: build space is a
    fixed-size tmpfs, and a session that goes through a whole suite would otherwise keep
    every task's."""
    name = BuildTree.of(task, tree).name
    session.exec(["rm", "-rf", f"{session.build_root}/{name}"], role=Role.builder, timeout_s=60)
    session.configured.pop(name, None)


# Printed between the configure and the build steps of one script, so their outputs part.
_BUILD_STARTS = "@@harness: build@@"
# Printed after a build whose test unit took Catch2 precompiled, and when this build compiled it so.
_PRECOMPILED = "@@harness: catch2 precompiled@@"
_PRECOMPILED_NOW = "@@harness: catch2 precompiled now@@"


@dataclass
class _Build:
    result: ExecResult
    configure_log: str  # CMake's output when this run configured the tree, else ""
    build_log: str      # make's output for the exercise's target
    catch_precompiled: bool = False  # the test unit linked took Catch2 precompiled
    precompiled_now: bool = False    # ... and this build compiled it so
    after: ExecResult | None = None  # what `after_build` printed, when the build succeeded and it ran

    @property
    def configure_failed(self) -> bool:
        return self.result.exit_code == _CONFIGURE_FAILED


def configure_and_build(task: Task, session: SandboxSession, tree: BuildTree | None = None) -> ExecResult:
    """Configure (when needed) and build, under the sandbox's build limit."""
    built = _configure_and_build(task, session, session.limits.build_timeout_s, tree)
    return replace(built.result, output=(built.configure_log + built.build_log).encode())


def _configure_and_build(task: Task, session: SandboxSession, timeout_s: float, tree: BuildTree | None = None,
                         catch_pch: tuple[str, str] | None = None, build_script: str | None = None,
                         after_build: str | None = None) -> _Build:
    built = _configure_and_build_once(task, session, timeout_s, tree, catch_pch, build_script=build_script,
                                      after_build=after_build)
    if not built.precompiled_now or built.result.timed_out:
        return built
    if built.result.exit_code == 0 and not clean_log(built.build_log, session, task.exercise):
        return built
    # It failed, or the compiler had something to say, with a unit that took Catch2
    # precompiled: what a person reads must be what the Exercism build prints, so what
    # this build compiled is compiled again, the unit as it is.
    again = _configure_and_build_once(task, session, max(1.0, timeout_s - built.result.seconds), tree, None,
                                      prelude=_undo_build(task, session), after_build=after_build)
    again.result = replace(again.result, seconds=built.result.seconds + again.result.seconds)
    again.configure_log = built.configure_log + again.configure_log
    return again


def _configure_and_build_once(task: Task, session: SandboxSession, timeout_s: float, tree: BuildTree | None,
                              catch_pch: tuple[str, str] | None, prelude: str | None = None,
                              build_script: str | None = None, after_build: str | None = None) -> _Build:
    configure = configure_steps(task, session, tree)
    # A caller's own build step stands in for make only in a tree configured for this content.
    script = build_script if build_script and not configure else build_step(task, session, tree, catch_pch)
    if prelude:
        script = f"{prelude}; {script}"
    # What runs after a build that succeeded shares its exec (one exec less per round); its
    # output follows a line no compiler message of the candidate's can know to print.
    mark = f"@@harness: after the build {secrets.token_hex(16)}@@"
    if after_build:
        script = f"( {script} ); code=$?; [ $code -ne 0 ] || {{ echo '{mark}'; {after_build}; }}; exit $code"
    if configure:
        script = f"{' && '.join(configure)} || exit {_CONFIGURE_FAILED}; echo '{_BUILD_STARTS}'; {script}"
    result = session.exec(["sh", "-c", script], role=Role.builder, timeout_s=timeout_s)
    after: ExecResult | None = None
    if after_build:
        # The build's output ends in a newline, or is empty, where the mark follows it.
        head, marked, tail = (b"\n" + result.output).partition(f"\n{mark}\n".encode())
        if marked:
            after = replace(result, output=tail, seconds=0.0)
            result = replace(result, output=head[1:] + b"\n" if head[1:] else b"", truncated=False)
    # A solution that does not compile leaves the configured tree (and the compiled test
    # unit) good for the next round; only a failed configure or a lost tree starts over.
    note_configured(task, session, result.exit_code is not None and result.exit_code != _CONFIGURE_FAILED, tree)
    text = result.output.decode(errors="replace")
    flags = set()
    if catch_pch is not None:
        for line in (_PRECOMPILED_NOW, _PRECOMPILED):
            if text.endswith(line + "\n"):
                text = text[:-len(line) - 1]
                flags.add(line)
    configure_log, build_log = "", text
    if configure:
        before, marker, rest = text.partition(_BUILD_STARTS + "\n")
        configure_log, build_log = (before, rest) if marker else (text, "")
    return _Build(result, configure_log, build_log, catch_precompiled=_PRECOMPILED in flags,
                  precompiled_now=_PRECOMPILED_NOW in flags, after=after)


def _no_target_line(task: Task, build_log: str) -> str | None:
    """make's answer when the task's CMake defines no target named after the exercise; the
    one line a reader needs instead of make's usage chatter."""
    if re.search(rf"No rule to make target [‘'`]?{re.escape(task.exercise)}[’']?", build_log):
        return (f"the task's CMakeLists.txt defines no target named {task.exercise} (the exercise's name), "
                "which is the test binary the harness builds and runs")
    return None


def _run_binary(task: Task, session: SandboxSession, timeout_s: float,
                keys: ChannelKeys | None = None) -> tuple[ExecResult, "_Collected"]:
    binary = shlex.quote(f"{session.build_root}/{task.exercise}/{task.exercise}")
    reporter = "harness-xml" if linked_test_main(task, session) is TestMain.harness else "xml"
    # The report is not the program's output: it gets room for every test's capped output.
    files = [Kept(".report", 4 * session.limits.output_cap_bytes), Kept(".names", session.limits.output_cap_bytes),
             Kept(".out", max(4096, session.limits.output_cap_bytes - 65536))]
    # The names are listed after the run, on no input: by then the run has read its keys,
    # and a listing that reads its parent's stdin finds it drained.
    names = f"{binary} --list-test-names-only >.names 2>/dev/null </dev/null"
    run = f"{binary} --reporter {reporter} --out .report >.out 2>&1; code=$?"
    if keys is not None:
        files.append(Kept(".channel", CHANNEL_CAP))
        run = _channel_run(run)
    ran, got = capture(session, f"{run}; {names}", files, timeout_s, stdin=keys.stdin() if keys else None)
    if got is None:
        return ran, _Collected(report_truncated=ran.truncated)
    return ran, _Collected(
        exit_code=got.exit_code, report=got.contents[0], report_truncated=got.truncated(0),
        names=[n for n in got.contents[1].decode(errors="replace").splitlines() if n.strip()],
        output=got.contents[2].decode(errors="replace"), truncated=got.truncated(2),
        channel=got.contents[3] if keys is not None else None,
        channel_truncated=keys is not None and got.truncated(3),
    )


def _channel_run(run: str) -> str:
    """`run` with the binary's fd 3 on a pipe that a reader outside it copies to .channel
    while it runs, so that nothing the binary wrote there can be taken back. The pipe's
    name is gone before the binary starts; the reader's end closes when every writer has,
    and the shell waits for it (a candidate's child that keeps the pipe open runs into
    the time limit). The exit status stays in the shell."""
    return (f"mkfifo .channel-pipe && {{ head -c {CHANNEL_CAP} <.channel-pipe >.channel & }} && "
            f"exec 3>.channel-pipe && rm -f .channel-pipe && {{ {run}; }}; exec 3>&-; wait")


@dataclass
class _Collected:
    """What a test run left: the binary's exit code, its report, the test names it lists,
    its own output and whether that was cut."""

    exit_code: int | None = None
    report: bytes = b""
    report_truncated: bool = False
    names: list[str] = field(default_factory=list)
    output: str = ""
    truncated: bool = False
    channel: bytes | None = None  # the verdict channel's bytes, where the binary has one
    channel_truncated: bool = False


def run_tests(task: Task, workspace: Path | Mapping[str, bytes], session: SandboxSession, *,
              transcript: bool = False, time_limit_s: float | None = None,
              after_stage: Callable[[], None] | None = None, build_script: str | None = None) -> TestReport:
    """Build and test a workspace. `transcript` also keeps, for a run that did not pass,
    the console output a person running the exercise's build and tests would have seen
    (TestReport.transcript). `time_limit_s` is one limit for configure, build and tests
    together, in place of the sandbox's separate build and run limits. `after_stage` runs
    between staging the sources and building them: the moment to put objects compiled
    before into the build tree, newer than their sources, so that make only links them.
    `build_script`, a shell command run as the builder, takes make's place in a build tree
    already configured for this task content (a caller that knows what is up to date)."""
    files, tampered = stage_files(task, workspace)
    session.stage(task.exercise, files)
    if after_stage is not None:
        after_stage()
    main = linked_test_main(task, session)
    common: dict[str, Any] = dict(tampered=tampered, backend=session.backend, test_main=main)

    build_limit = session.limits.build_timeout_s if time_limit_s is None else time_limit_s
    screen = plan_screen(task, files, session)
    built = _configure_and_build(task, session, build_limit, catch_pch=_catch_pch_unit(task, files, session, main),
                                 build_script=build_script, after_build=screen.script)
    common["catch_precompiled"] = built.catch_precompiled
    build = built.result
    console = exercise_paths(built.configure_log + built.build_log, session, task.exercise) if transcript else None
    if build.timed_out:
        limit = "configure, build and tests" if time_limit_s is not None else "the build"
        return TestReport(
            status=Status.error, timeout=True, build_seconds=round(build.seconds, 3),
            message=f"{limit} timed out after {build_limit:g} s\n"
            + clean_log(built.configure_log + built.build_log, session, task.exercise),
            transcript=console, **common,
        )
    if build.exit_code != 0:
        if built.configure_failed:
            message = clean_log(built.configure_log, session, task.exercise)
        else:
            message = _no_target_line(task, built.build_log) or clean_log(built.build_log, session, task.exercise)
        return TestReport(
            status=Status.error, build_seconds=round(build.seconds, 3), exit_code=build.exit_code,
            message=message or f"the build failed (exit {build.exit_code})", transcript=console,
            **common,
        )

    forgery, screen_seconds = judge_build(task, files, session, screen, built.after)
    if forgery:
        # The binary never runs: what it would report is what the candidate reached for.
        return forged_report(forgery, transcript=console is not None, console=console, built=True,
                             build_seconds=round(build.seconds + screen_seconds, 3), **common)
    run_limit = session.limits.timeout_s if time_limit_s is None else max(1.0, time_limit_s - build.seconds)
    keys = ChannelKeys.fresh() if uses_verdict_channel(task, session) else None
    run, got = _run_binary(task, session, run_limit, keys)
    parsed = parse_catch2_xml(got.report)
    channel_forgery: list[str] = []
    if keys is not None:
        parsed, channel_forgery = _channel_verdict(task, parsed, keys, got, run)
    names, output, exit_code = got.names, got.output, got.exit_code
    truncated = got.report_truncated or got.truncated

    tests = list(parsed.cases)
    seen = {t.name for t in tests}
    timings = dict(built=True, build_seconds=round(build.seconds, 3), run_seconds=round(run.seconds, 3))
    sig = signal_name(exit_code) if exit_code is not None else None

    why: str | None
    if run.timed_out:
        why = killed_at_limit(run_limit)
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

    found = dict(exit_code=exit_code, output=output or None, output_truncated=truncated,
                 assertions=parsed.assertions if parsed.complete else None, **timings, **common)
    if why is not None:
        for n in names:
            if n not in seen:
                tests.append(TestCaseResult(name=n, status=Status.error, message=f"not run: {why}"))
        report = TestReport(status=Status.error, message=why, tests=tests, timeout=run.timed_out, **found)
    elif all(t.status is Status.passed for t in tests) and exit_code != 0:
        report = TestReport(status=Status.error, tests=tests,
                            message=f"every test passed but the test binary exited with code {exit_code}", **found)
    else:
        passed = all(t.status is Status.passed for t in tests)
        report = TestReport(status=Status.passed if passed else Status.failed, tests=tests, **found)
    report = report.overruled(channel_forgery)
    if console is not None and not report.passed:
        if not run.timed_out:
            console += exercise_paths(_console_run(task, session, run_limit), session, task.exercise)
        report.transcript = console
    return report


def declared_test_cases(task: Task) -> int:
    """How many test cases the task's test files compile to in the harness's build."""
    return sum(count_test_cases(task.read(f)) for f in task.test_files)


def _channel_verdict(task: Task, xml: CatchRun, keys: ChannelKeys, got: "_Collected",
                     run: ExecResult) -> tuple[CatchRun, list[str]]:
    """The run as its verdict channel tells it, and why it is forged, if it is."""
    if got.channel is None:  # nothing came back: the run timed out or its output was cut
        return CatchRun(unreadable="the test run left no readable verdict channel"), []
    channel = read_channel(got.channel, keys, got.channel_truncated)
    return judged(xml, channel, got.exit_code, run.timed_out, declared_test_cases(task))


def _catch_pch_unit(task: Task, files: Mapping[str, bytes], session: SandboxSession,
                    main: TestMain) -> tuple[str, str] | None:
    """(test unit, its first header) when this round's unit may take Catch2 precompiled:
    it reads the image's own Catch2 (our main, or upstream's EXERCISM_TEST_SUITE branch),
    and its files pass catch_pch's test."""
    if session.cxx_launcher is None or main is TestMain.task or len(task.test_files) != 1 \
            or os.environ.get("HARNESS_CATCH_PCH", "1") == "0":
        return None
    header = precompiled_unit(task.test_files[0], files, session.catch_pch_facts())
    return (task.test_files[0], header) if header is not None else None


def _console_run(task: Task, session: SandboxSession, timeout_s: float) -> str:
    """The test binary run once more as a person runs it, Catch2's console reporter
    writing to the terminal, for the transcript (the XML run above decides the outcome)."""
    binary = shlex.quote(f"{session.build_root}/{task.exercise}/{task.exercise}")
    _, got = capture(session, f"{binary} >.console 2>&1", (Kept(".console", session.limits.output_cap_bytes),), timeout_s)
    return got.contents[0].decode(errors="replace") if got is not None else ""
