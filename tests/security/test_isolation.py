"""Isolation between runs, and between the runner and the sources (issue 28).

- Every place the runner can write (its scratch, /tmp, /dev/shm, /dev/mqueue, SysV IPC) is
  fresh for each run: a written suite that looks for what an earlier run left there finds
  nothing, in the next run of the same session (the next target of a suite) and in the
  next trial's (a session handed back to the pool and taken again).
- The runner cannot read the sources nor the build tree's other files: a suite that reads
  the solution's source beside `__FILE__` (or in the build tree's objects) to tell the
  reference from a broken copy cannot, and the test binary still runs.
- A suite that passes only the first time it runs in a container scores like any other
  suite: it passes every time, wherever the reference's place was drawn."""

from __future__ import annotations

import os
import time
import types

import pytest

from harness.errors import SandboxUnavailable
from harness.records import Status
from harness.sandbox.base import Role
from harness.sandbox.local import LocalSandbox
from harness.sandbox.pool import SessionPool
from harness.task import load_task
from harness.languages.cpp.testrun import run_tests
from harness.testwriting import score as scoring
from harness.testwriting.score import TargetPool, score_with_report
from harness.testwriting.written import with_written_tests

from ..conftest import ROOT

pytestmark = [pytest.mark.slow]

PERFECT = load_task(ROOT / "suites" / "fixed26" / "perfect-numbers")
SOLUTION = "perfect_numbers.cpp"
CAP = 5

# What a candidate can leave for a later run: a file in /dev/shm and in /tmp, a POSIX
# message queue, a SysV shared memory segment, a SysV semaphore set and message queue.
LEAVES = b"""
#include <fcntl.h>
#include <mqueue.h>
#include <sys/ipc.h>
#include <sys/msg.h>
#include <sys/sem.h>
#include <sys/shm.h>
#include <unistd.h>

#include <string>

namespace {
const key_t KEY = 0x4a17;

std::string leftovers() {
    std::string found;
    if (access("/dev/shm/harness-leak", F_OK) == 0) found += " /dev/shm";
    if (access("/tmp/harness-leak", F_OK) == 0) found += " /tmp";
    const mqd_t q = mq_open("/harness-leak", O_RDONLY);
    if (q != (mqd_t)-1) { found += " mqueue"; mq_close(q); }
    if (shmget(KEY, 0, 0) != -1) found += " sysv-shm";
    if (semget(KEY, 0, 0) != -1) found += " sysv-sem";
    if (msgget(KEY, 0) != -1) found += " sysv-msg";
    return found;
}

std::string leave() {
    std::string left;
    if (close(open("/dev/shm/harness-leak", O_CREAT | O_WRONLY, 0666)) == 0) left += " /dev/shm";
    if (close(open("/tmp/harness-leak", O_CREAT | O_WRONLY, 0666)) == 0) left += " /tmp";
    mq_attr attr{};
    attr.mq_maxmsg = 1;
    attr.mq_msgsize = 8;
    const mqd_t q = mq_open("/harness-leak", O_CREAT | O_RDWR, 0666, &attr);
    if (q != (mqd_t)-1) { left += " mqueue"; mq_close(q); }
    if (shmget(KEY, 4096, IPC_CREAT | 0666) != -1) left += " sysv-shm";
    if (semget(KEY, 1, IPC_CREAT | 0666) != -1) left += " sysv-sem";
    if (msgget(KEY, IPC_CREAT | 0666) != -1) left += " sysv-msg";
    return left;
}
}  // namespace
"""

LOOKS_FOR_LEFTOVERS = b'#include "perfect_numbers.h"\n\n#include <catch2/catch.hpp>\n' + LEAVES + b"""
TEST_CASE("nothing an earlier run wrote is here") {
    const std::string found = leftovers();
    const std::string left = leave();
    INFO("left by an earlier run:" << found << "; left by this one:" << left);
    REQUIRE(found.empty());
    REQUIRE(left == " /dev/shm /tmp mqueue sysv-shm sysv-sem sysv-msg");
}
"""

# Passes the first time it runs in a container and fails every time after.
FIRST_RUN_ONLY = b'#include "perfect_numbers.h"\n\n#include <catch2/catch.hpp>\n' + LEAVES + b"""
TEST_CASE("the first run passes") {
    const bool first = leftovers().empty();
    leave();
    REQUIRE(first);
}
"""


def _fnv(data: bytes) -> int:
    h = 0xcbf29ce484222325
    for b in data:
        h = ((h ^ b) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    return h


def reads_sources(build_root: str | None = None) -> bytes:
    """A suite that passes exactly when the solution it is built with is the reference,
    telling them apart by the bytes of the solution's source (beside __FILE__, or in the
    staged sources); with `build_root`, also a test case that passes when the runner reads
    none of the sources nor the build tree's files."""
    source = PERFECT.reference_files()[SOLUTION]
    return b'#include "perfect_numbers.h"\n\n#include <catch2/catch.hpp>\n' + f"""
#include <fstream>
#include <iterator>
#include <string>

namespace {{
bool read(const std::string& path, std::string& out) {{
    std::ifstream in(path, std::ios::binary);
    if (!in) return false;
    out.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    return true;
}}

unsigned long long fnv(const std::string& s) {{
    unsigned long long h = 0xcbf29ce484222325ULL;
    for (unsigned char c : s) h = (h ^ c) * 0x100000001b3ULL;
    return h;
}}
}}  // namespace

TEST_CASE("the solution is the reference, by its source") {{
    std::string file = __FILE__, text;
    const std::string beside = file.substr(0, file.rfind('/') + 1) + "{SOLUTION}";
    const bool got = read(beside, text) || read("/src/perfect-numbers/{SOLUTION}", text);
    INFO("read " << beside << ": " << got);
    REQUIRE(got);
    REQUIRE(text.size() == {len(source)}u);
    REQUIRE(fnv(text) == {_fnv(source)}ULL);
}}
""".encode() + (b"" if build_root is None else f"""
TEST_CASE("the runner reads nothing of the sources or the build tree") {{
    std::string file = __FILE__, text;
    const std::string dir = file.substr(0, file.rfind('/') + 1);
    const std::string tree = "{build_root}/perfect-numbers/";
    CHECK_FALSE(read(file, text));
    CHECK_FALSE(read(dir + "{SOLUTION}", text));
    CHECK_FALSE(read(dir + "CMakeLists.txt", text));
    CHECK_FALSE(read(tree + "CMakeFiles/perfect-numbers.dir/{SOLUTION}.o", text));
    CHECK_FALSE(read(tree + "CMakeCache.txt", text));
}}
""".encode())


@pytest.fixture(params=["docker", "local", "local-plain"])
def sandbox(request):
    """Each backend, and the local one without bubblewrap, where /tmp, /dev/shm and SysV IPC
    are the host's."""
    if request.param == "local-plain":
        try:
            return LocalSandbox(use_bwrap=False)
        except SandboxUnavailable as exc:
            pytest.skip(f"local sandbox unavailable: {exc}")
    return request.getfixturevalue(f"{request.param}_sandbox")


def _failures(report) -> str:
    return f"{report.status.value}: {report.message or ''} " + "; ".join(
        f"{t.name}: {t.message}" for t in report.failing())


def test_what_a_run_leaves_is_gone_for_the_next_run_and_the_next_trial(sandbox):
    written = with_written_tests(PERFECT, LOOKS_FOR_LEFTOVERS)
    pool = SessionPool(sandbox)
    try:
        session = pool.acquire("leftovers")
        for run in ("first", "next run"):
            report = run_tests(written, PERFECT.reference_files(), session)
            assert report.passed, f"{run}: {_failures(report)}"
        pool.release(session)
        again = pool.acquire("leftovers, next trial")
        assert again is session  # the same container (or folders), emptied between trials
        report = run_tests(written, PERFECT.reference_files(), again)
        assert report.passed, f"next trial: {_failures(report)}"
        pool.release(again)
    finally:
        pool.close()


def test_the_runner_cannot_read_the_sources_or_the_build_tree_and_still_runs_the_binary(sandbox):
    with sandbox.session("sources") as session:
        report = run_tests(with_written_tests(PERFECT, reads_sources(session.build_root)),
                           PERFECT.reference_files(), session)
    assert report.built and report.tests, _failures(report)
    by_name = {t.name: t for t in report.tests}
    assert by_name["the runner reads nothing of the sources or the build tree"].status is Status.passed, _failures(report)
    assert by_name["the solution is the reference, by its source"].status is not Status.passed


@pytest.fixture(scope="module")
def targets():
    return TargetPool(mutant_cap=CAP)


def _reference_first(monkeypatch) -> None:
    """The reference's place drawn first, as it always was before the draw: the run a
    first-run suite passes is the reference's."""
    fake = types.SimpleNamespace(Random=lambda seed: types.SimpleNamespace(randrange=lambda n: 0))
    monkeypatch.setattr(scoring, "random", fake, raising=False)


@pytest.mark.docker
def test_a_suite_that_reads_the_solutions_source_kills_nothing(docker_sandbox, targets, monkeypatch):
    _reference_first(monkeypatch)
    with docker_sandbox.session("reads sources") as session:
        scored, _ = score_with_report(PERFECT, reads_sources(), session,
                                      lambda: targets.get(PERFECT, session))
    assert not (scored.valid and scored.kill_rate), f"valid {scored.valid}, kill rate {scored.kill_rate}"


@pytest.mark.docker
def test_a_suite_that_passes_only_its_first_run_kills_nothing_even_with_the_reference_first(
        docker_sandbox, targets, monkeypatch):
    _reference_first(monkeypatch)
    with docker_sandbox.session("first run") as session:
        scored, _ = score_with_report(PERFECT, FIRST_RUN_ONLY, session, lambda: targets.get(PERFECT, session))
    assert scored.reference_position == 0
    assert scored.valid and scored.kill_rate == 0.0, f"valid {scored.valid}, kill rate {scored.kill_rate}"
    assert all(t.outcome is scoring.TargetOutcome.survived for t in scored.targets)


def _processes_with(word: bytes) -> list[int]:
    """The host's processes whose command line has `word` (a container's and a pid
    namespace's too)."""
    found = []
    for entry in os.scandir("/proc"):
        try:
            with open(f"/proc/{entry.name}/cmdline", "rb") as f:
                if word in f.read().split(b"\0"):
                    found.append(int(entry.name))
        except (OSError, ValueError):
            continue
    return found


def test_a_process_that_leaves_its_commands_group_holding_its_output_is_ended_with_it(sandbox):
    """It neither holds the exec up (its output never ends while it lives) nor outlives it."""
    with sandbox.session("escapes") as session:
        started = time.monotonic()
        # The shell ends once the other has left its group (and its session).
        escape = (f"cd {session.scratch_root}; setsid sh -c ': >left; exec sleep 6002' & "
                  "until [ -e left ]; do sleep 0.01; done; echo started")
        result = session.exec(["sh", "-c", escape], role=Role.runner, timeout_s=60)
        seconds = time.monotonic() - started
    assert result.output == b"started\n" and not result.timed_out, result
    assert seconds < 15
    assert not _processes_with(b"6002")
