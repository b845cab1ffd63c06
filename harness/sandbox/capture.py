"""Running a candidate's program in a session and reading back what it wrote, in one exec.

The program runs as the runner in its emptied scratch, writing to files there. When it has
exited, every process of the runner is killed, so nothing it forked outlives the run or
writes afterwards; only then does the script print the first bytes of each file and a
closing line with the exit status and the sizes. The harness reads from the end, so
whatever the program managed to write on the exec's own output before that comes first
and is ignored. Last, the script empties every place the runner may write (its scratch,
/tmp, /dev/shm, /dev/mqueue, SysV IPC: `leave_nothing`), so that each run of each target
starts from nothing, and its own exit status says whether that worked and no process of
the runner is left (not even a zombie holding a process slot): a session whose runner cleaned up after itself needs no second
exec to be made fit for the next trial (`SandboxSession.runner_dirty`); one whose runner
did not is made fit at once (`make_fit`), so that nothing one candidate leaves behind
reaches the next candidate's build or run.

Every exec costs the engine tens of milliseconds of CPU (runc starts twice per exec), about
as much as a small compile: a test round of one exec instead of three is measurably
cheaper on a machine whose cores are all compiling."""

from __future__ import annotations

import shlex
from dataclasses import dataclass
from typing import Sequence

from .base import ExecResult, Role, SandboxSession

_CLOSING = "@@harness-capture"
_CLOSED = "@@harness-capture-end"


@dataclass(frozen=True)
class Kept:
    """A file the program writes in its scratch, and how much of it comes back."""

    name: str
    keep: int


@dataclass
class Captured:
    """What came back: the program's exit status, each file's first bytes and its size,
    and what the exec printed before the files (the script's own lines, and whatever the
    program printed on the exec's output rather than in its files)."""

    exit_code: int | None
    contents: list[bytes]
    sizes: list[int]
    preamble: bytes = b""

    def truncated(self, i: int) -> bool:
        return self.sizes[i] > len(self.contents[i])


def capture_script(session: SandboxSession, run: str, files: Sequence[Kept]) -> str:
    """The runner script: `run` (shell that runs in the emptied scratch and leaves the
    program's exit status in $code), then the kill, the files, the closing line and the
    clean-up described above."""
    scratch = shlex.quote(session.scratch_root)
    return (
        f"cd {scratch} && find . -mindepth 1 -delete 2>/dev/null; code=; "
        f"{run}; kill -9 -1 2>/dev/null; {read_back(files)}"
        f"{leave_nothing(session)}"
    )


def read_back(files: Sequence[Kept]) -> str:
    """Shell that prints the files of the current folder and the closing line with $code,
    as `read_captured` reads them (for any role: the builder's test run reads back its own)."""
    kept = [f".harness-kept-{i}" for i in range(len(files))]
    names = " ".join(shlex.quote(f.name) for f in files)
    # Each file's first bytes are copied while nothing of the runner runs, then printed;
    # the sizes come after the closing line: the copies' in order, then each file's own as
    # `name size` (a file that is not there has no line). Two stats for every file at once:
    # each process the runner starts costs the round a few milliseconds.
    heads = "".join(f"head -c {f.keep} {shlex.quote(f.name)} >{k} 2>/dev/null; " for k, f in zip(kept, files))
    return (
        f"rm -rf {' '.join(kept)}; {heads}cat {' '.join(kept)}; "
        f"printf '\\n{_CLOSING} %s\\n' \"${{code:-none}}\"; stat -c %s {' '.join(kept)}; "
        f"stat -L -c '%n %s' {names} 2>/dev/null; echo {_CLOSED}; "
    )


def leave_nothing(session: SandboxSession) -> str:
    """Shell, run as the runner, that ends its processes and removes everything it made
    that would outlive its command (files in its scratch, /tmp, /dev/shm and /dev/mqueue,
    SysV IPC objects it owns or created), then exits 0 only if nothing of it is left: a
    suite that found its own marker from an earlier run told a target from the reference.
    `find -user` leaves the builder's files alone; a folder the runner made unreadable
    stays, is found by the check, and makes the session new (`make_fit`)."""
    scratch = shlex.quote(session.scratch_root)
    spaces = " ".join(shlex.quote(p) for p in session.runner_spaces)
    remove = check = ""
    if session.runner_ipc:
        # Owned or created by the runner: IPC_SET can give an object away, never its creator.
        remove = "ipcrm -a 2>/dev/null; "
        check = ("awk -v u=\"$me\" 'FNR > 1 && (FILENAME ~ /sem$/ ? $5 == u || $7 == u : $8 == u || $10 == u) "
                 "{ left = 1 } END { exit left }' /proc/sysvipc/shm /proc/sysvipc/sem /proc/sysvipc/msg && ")
    # The scratch itself may lie in another of them (the local backend's, in /tmp).
    mine = f"-mindepth 1 -user \"$me\" ! -path {scratch}"
    return (
        f"cd /; kill -9 -1 2>/dev/null; me=$(id -u); find {spaces} {mine} -delete 2>/dev/null; "
        # One find for what is left: anything in the scratch, and the runner's anywhere.
        f"{remove}[ -z \"$(find {scratch} {spaces} -mindepth 1 \\( -path {shlex.quote(session.scratch_root + '/*')} "
        f"-o -user \"$me\" \\) ! -path {scratch} -print -quit 2>/dev/null)\" ] && {check}{session.runner_alone}"
    )


def capture(session: SandboxSession, run: str, files: Sequence[Kept], timeout_s: float,
            stdin: bytes | None = None) -> tuple[ExecResult, Captured | None]:
    """Run the capture script (`stdin`, when given, is the script's standard input); the
    exec's result, and what came back (None when the run timed out or nothing readable
    came back)."""
    cap = sum(f.keep for f in files) + 4096
    result = session.exec(["sh", "-c", capture_script(session, run, files)], role=Role.runner,
                          timeout_s=timeout_s, cap=cap, stdin=stdin)
    # After a timeout the session says: a restarted container left no runner behind, a
    # local command killed before its clean-up did.
    if not result.timed_out:
        session.runner_dirty = result.exit_code != 0
    got = None if result.timed_out or result.truncated else read_captured(result.output, files)
    if session.runner_dirty:
        session.make_fit()
    return result, got


def killed_at_limit(limit: float) -> str:
    """What every language's test round says of a run its limit killed."""
    return f"the test run timed out after {limit:g} s and was killed"


def lost_run(ran: ExecResult, limit: float) -> str:
    """Why a test run left nothing its judge can read: the limit's kill, or else what the exec
    says of itself (its status and how much it printed, cut at its cap or not), so that a run
    whose output broke off is told from one that never got as far as printing."""
    if ran.timed_out:
        return killed_at_limit(limit)
    cut = ", cut at its cap" if ran.truncated else ""
    return f"the test run left no readable results (exit status {ran.exit_code}, {len(ran.output)} bytes of output{cut})"


def read_captured(output: bytes, files: Sequence[Kept]) -> Captured | None:
    """The capture's files from the script's output, read from its closing line
    backwards; None when there is no readable closing line."""
    cut = output.rfind(f"\n{_CLOSING} ".encode())
    if cut < 0 or not output.endswith(f"\n{_CLOSED}\n".encode()):
        return None
    lines = output[cut + 1:-len(_CLOSED) - 2].decode(errors="replace").split("\n")
    n = len(files)
    if len(lines) < 1 + n or len(lines) > 1 + 2 * n:
        return None
    own = {f.name: i for i, f in enumerate(files)}
    sizes = [0] * n
    try:
        status = lines[0][len(_CLOSING) + 1:]
        code = None if status == "none" else int(status)
        kept = [int(x) for x in lines[1:1 + n]]
        for line in lines[1 + n:]:
            name, _, size = line.rpartition(" ")
            if name not in own:
                return None
            sizes[own[name]] = int(size)
    except ValueError:
        return None
    body = output[:cut]
    if sum(kept) > len(body):
        return None
    contents, end = [], len(body)
    for k in reversed(kept):
        contents.append(body[end - k:end])
        end -= k
    return Captured(exit_code=code, contents=contents[::-1], sizes=sizes, preamble=body[:end])
