"""One Java test round in a session: the screen (screen.py) decides first; the builder
copies the staged exercise into its build tree (the tests without their `@Disabled` lines,
as Aider's benchmark runs them) and compiles the solution and the tests in one javac
against Debian's JUnit and AssertJ; the runner runs the harness's launcher on the test
classes in its scratch, with the round's token on standard input and the verdict channel
on descriptor 3 (verdict.py judges it). Both JVMs map a class-data archive made when the
image was built (assets/image.dockerfile)."""

from __future__ import annotations

import re
import shlex
from pathlib import Path
from typing import Any, Mapping

from ...errors import SandboxUnavailable
from ...records import Status, TestReport
from ...sandbox.base import Role, SandboxSession
from ...sandbox.capture import Kept, capture, killed_at_limit, lost_run
from ...staging import stage_files
from ...task import Task
from .cases import case_texts, enabled, test_class
from .console import build_console, tests_console
from ..token_screen import refused_report
from .screen import declared_comparisons, refusals
from .verdict import fresh_token, judged, read_channel, tests_of

_HOME = "/opt/harness/java"
_JARS = ":".join(f"/usr/share/java/{jar}" for jar in (
    "junit-platform-console-standalone.jar", "assertj-core.jar", "com.android.json.jar"))
_SOLUTION_DIR = "src/main/java/"
_CHANNEL_CAP = 8 * 1024 * 1024


def _subdir(task: Task) -> str:
    return f"java-{task.slug}"


def _clean(text: str, task: Task) -> str:
    """The build folder named as the exercise's, as Aider's benchmark names its own."""
    return text.replace(f"/build/{_subdir(task)}", task.exercise)


def _test_sources(task: Task) -> list[str]:
    """Every test class the task ships, as Gradle runs every class of `src/test/java`: the
    ones its config lists and any beside them (satellite ships a second)."""
    return sorted({*task.test_files, *(rel for rel in task.protected_files
                                       if rel.startswith("src/test/java/") and rel.endswith(".java"))})


def _created_refused(task: Task, rel: str) -> bool:
    """A created file is compiled only as another class of the solution: a `.java` file
    directly in the solution's folder. Anything else is refused, never compiled."""
    return not (rel.startswith(_SOLUTION_DIR) and rel.endswith(".java") and "/" not in rel[len(_SOLUTION_DIR):])


def run_tests(task: Task, workspace: Path | Mapping[str, bytes], session: SandboxSession, *,
              transcript: bool = False, time_limit_s: float | None = None) -> TestReport:
    """Test a workspace. `transcript` keeps, for a run that did not pass, the console output
    as `./gradlew test` prints it (TestReport.transcript); `time_limit_s` takes the place
    of the sandbox's run limit."""
    session.serve(task.layout.name)
    if session.backend != "docker":
        raise SandboxUnavailable(f"Java exercises run in the Docker sandbox only, not the {session.backend} backend")
    files, tampered = stage_files(task, workspace)
    shipped = set(task.shipped_files) | set(task.solution_files)
    created = sorted(f for f in files if f not in shipped and _created_refused(task, f))
    tampered = sorted({*tampered, *created})
    files = {rel: data for rel, data in files.items() if rel not in created}
    common: dict[str, Any] = dict(tampered=tampered, backend=session.backend)
    sources = sorted(rel for rel in files if rel.endswith(".java"))
    # The task's own files (its tests, a test class its config does not list) are not the
    # candidate's: every other source is.
    own = declared_comparisons(task.reference_files()) | declared_comparisons(task.stub_files())
    refused = refusals({rel: files[rel] for rel in sources if rel not in task.protected_files}, own)
    if refused:
        return refused_report(refused, transcript, common)
    for rel in _test_sources(task):
        files[rel] = enabled(files[rel])
    sub = _subdir(task)
    session.stage(sub, files)
    build = f"/build/{sub}"
    javac = (f"javac -J-XX:SharedArchiveFile={_HOME}/javac.jsa -J-XX:TieredStopAtLevel=1 -J-XX:+UseSerialGC "
             f"-proc:none -nowarn -encoding UTF-8 -Xmaxerrs 100 -d classes -cp {_JARS} "
             + " ".join(shlex.quote(rel) for rel in sources))
    script = (f"rm -rf {build} && mkdir -p {build} && cp -R {session.src_root}/{sub}/. {build}/ && cd {build} "
              f"&& {javac} 2>&1 && chmod -R a+rX classes")
    built = session.exec(["sh", "-c", script], role=Role.builder, timeout_s=session.limits.build_timeout_s)
    output = _clean(built.output.decode("utf-8", "replace"), task)
    if built.timed_out or built.exit_code != 0:
        why = "the build timed out" if built.timed_out else output.strip() or f"the build failed ({built.exit_code})"
        report = TestReport(status=Status.error, message=why, build_seconds=round(built.seconds, 3), **common)
        if transcript:
            errors = [line for line in output.splitlines() if ": error:" in line]
            in_tests = bool(errors) and all(line.startswith("src/test/") for line in errors)
            report.transcript = build_console(re.sub(r"(?m)^src/", f"{task.exercise}/src/", output), in_tests)
        return report
    return _run(task, session, f"{build}/classes", built.seconds, transcript, time_limit_s, common)


def _run(task: Task, session: SandboxSession, classes: str, build_seconds: float, transcript: bool,
         time_limit_s: float | None, common: dict[str, Any]) -> TestReport:
    limit = session.limits.timeout_s if time_limit_s is None else time_limit_s
    token = fresh_token()
    classes_named = " ".join(shlex.quote(test_class(rel)) for rel in _test_sources(task))
    run = (f"printf %s {token} | timeout -s KILL {limit:g} java -XX:SharedArchiveFile={_HOME}/round.jsa "
           f"-XX:+UseSerialGC -cp {_HOME}/launcher.jar:{_JARS} HarnessLauncher {classes} {classes_named} "
           f">.out 2>&1 3>.verdict; code=$?")
    ran, got = capture(session, run, (Kept(".verdict", _CHANNEL_CAP), Kept(".out", 16 * 1024)), limit + 30)
    timed_out = ran.timed_out or (got is not None and got.exit_code == 137)
    timings = dict(built=True, build_seconds=round(build_seconds, 3), run_seconds=round(ran.seconds, 3), **common)
    if got is None:
        return TestReport(status=Status.error, timeout=ran.timed_out, message=lost_run(ran, limit),
                          **timings)
    channel = read_channel(got.contents[0], token)
    declared = [c.name for c in case_texts(task)]
    status, forgery, why = judged(channel, got.exit_code, declared)
    if timed_out and status is not Status.passed:
        why = killed_at_limit(limit)
    report = TestReport(status=status, message=why, tests=tests_of(channel, declared), exit_code=got.exit_code,
                        timeout=timed_out, output=got.contents[1].decode("utf-8", "replace") or None,
                        output_truncated=got.truncated(0) or got.truncated(1), **timings).overruled(forgery)
    if transcript and not report.passed:
        name = test_class(task.test_files[0]) if task.test_files else task.exercise
        report.transcript = _clean(tests_console(channel, name, task.exercise), task)
    return report


def drop_build(task: Task, session: SandboxSession) -> None:
    session.exec(["rm", "-rf", f"/build/{_subdir(task)}"], role=Role.builder, timeout_s=60)
