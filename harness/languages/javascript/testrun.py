"""One JavaScript test round in a session, as Aider's benchmark runs it (npm-test.sh):
every `xtest(` of the spec files made `test(`, then `npm run test` (the exercise's
`jest ./*`) in the exercise's folder with the image's node_modules linked into it. The
builder lays the folder out from the staged files; the runner runs npm and Jest, with the
harness's reporter (assets/reporter.js) added to Jest's default one, in a folder it may
read and not write, its caches in its scratch. The verdict comes from the reporter's
record with the round's token (verdict.py)."""

from __future__ import annotations

import re
import shlex
from pathlib import Path
from typing import Any, Mapping

from ...errors import SandboxUnavailable, SuiteBroken
from ...paths import package_file
from ...records import Status, TestReport
from ...sandbox.base import Role, SandboxSession
from ...sandbox.capture import Kept, capture
from ...staging import stage_files
from ...task import Task
from .cases import case_texts
from .verdict import clean_console, fresh_token, judged, read_record, tests_of

NODE_MODULES = "/opt/harness/npm/node_modules"  # the image's (assets/image.dockerfile)
_HARNESS = "javascript-harness"  # staged once a session: the reporter
_XTEST = re.compile(rb"\bxtest\(")
_CONSOLE_CAP = 1 << 20
_RECORD_CAP = 8 << 20


def _folder(task: Task, session: SandboxSession) -> str:
    return f"{session.build_root}/js-{task.slug}"


def _reporter(session: SandboxSession) -> str:
    return f"{session.build_root}/{_HARNESS}/reporter.js"


def _jest_args(session: SandboxSession) -> str:
    """What the round adds to `npm run test`: the harness's reporter beside Jest's own, and
    Jest's cache in the runner's scratch."""
    return f"--reporters=default --reporters={_reporter(session)} --cacheDirectory={session.scratch_root}/.jest"


def staged_files(task: Task, workspace: Path | Mapping[str, bytes]) -> tuple[dict[str, bytes], list[str]]:
    """The round's files: the task's with the model's solution, the spec files' `xtest(`
    made `test(` (npm-test.sh's sed), and the tampered ones."""
    files, tampered = stage_files(task, workspace)
    for rel in task.test_files:
        if rel in files and "/" not in rel and rel.endswith(".spec.js"):
            files[rel] = _XTEST.sub(b"test(", files[rel])
    return files, tampered


def _lay_out(task: Task, session: SandboxSession) -> None:
    q = shlex.quote
    folder, sub = _folder(task, session), f"js-{task.slug}"
    script = (f"umask 022 && rm -rf {q(folder)} && mkdir -p {q(folder)} {q(session.build_root)}/{_HARNESS} "
              f"&& cp -R --no-preserve=mode {q(session.src_root)}/{sub}/. {q(folder)}/ "
              f"&& cp --no-preserve=mode {q(session.src_root)}/{_HARNESS}/reporter.js {q(_reporter(session))} "
              f"&& ln -s {NODE_MODULES} {q(folder)}/node_modules")
    done = session.exec(["sh", "-c", script], role=Role.builder, timeout_s=60)
    if done.exit_code != 0:
        raise SandboxUnavailable(f"the round's folder for {task.slug} could not be laid out: "
                                 f"{done.output.decode(errors='replace').strip()[:500]}")


def run_tests(task: Task, workspace: Path | Mapping[str, bytes], session: SandboxSession, *,
              transcript: bool = False, time_limit_s: float | None = None) -> TestReport:
    """Test a workspace. `transcript` keeps, for a run that did not pass, the console as
    `npm run test` prints it, cleaned as Aider's benchmark cleans it; `time_limit_s` takes
    the place of the sandbox's run limit."""
    session.serve(task.layout.name)
    if session.backend != "docker":
        raise SandboxUnavailable(f"JavaScript exercises run in the Docker sandbox only, not the {session.backend} backend")
    if not task.test_files:
        raise SuiteBroken(f"{task.path}: a JavaScript exercise that names no test file (.meta/config.json)")
    files, tampered = staged_files(task, workspace)
    common: dict[str, Any] = dict(tampered=tampered, backend=session.backend)
    session.stage(f"js-{task.slug}", files)
    session.stage(_HARNESS, {"reporter.js": package_file("languages", "javascript", "assets", "reporter.js").read_bytes()})
    _lay_out(task, session)
    limit = session.limits.timeout_s if time_limit_s is None else time_limit_s
    token = fresh_token()
    scratch = session.scratch_root
    env = (f"HOME={scratch} npm_config_cache={scratch}/.npm npm_config_update_notifier=false "
           f"HARNESS_JS_TOKEN={token} HARNESS_JS_RESULTS={scratch}/.record")
    run = (f"cd {shlex.quote(_folder(task, session))} && {env} timeout -s KILL {limit:g} npm run test -- "
           f"{_jest_args(session)} >{scratch}/.console 2>&1; code=$?; cd {scratch}")
    ran, got = capture(session, run, (Kept(".console", _CONSOLE_CAP), Kept(".record", _RECORD_CAP)), limit + 30)
    timings = dict(built=True, run_seconds=round(ran.seconds, 3), **common)
    if got is None:
        lost = "the test run left no readable results"
        return TestReport(status=Status.error, timeout=ran.timed_out, message=lost, **timings)
    if got.exit_code == 137:
        return TestReport(status=Status.error, timeout=True, exit_code=got.exit_code,
                          message=f"the test run timed out after {limit:g} s and was killed", **timings)
    record = read_record(got.contents[1], token)
    declared = [c.name for c in case_texts(task)]
    status, forgery, why = judged(record, got.exit_code, declared)
    folder = _folder(task, session)
    tests = tests_of(record, declared)
    for t in tests:
        t.message = clean_console(t.message, folder, task.slug) if t.message else t.message
    report = TestReport(status=status, message=why and clean_console(why, folder, task.slug), tests=tests,
                        exit_code=got.exit_code, output_truncated=got.truncated(0), **timings).overruled(forgery)
    if transcript and not report.passed:
        console = got.contents[0].decode("utf-8", "replace").replace(" " + _jest_args(session), "")
        report.transcript = clean_console(console, folder, task.slug)
    return report


def drop_build(task: Task, session: SandboxSession) -> None:
    session.exec(["rm", "-rf", _folder(task, session)], role=Role.builder, timeout_s=60)
