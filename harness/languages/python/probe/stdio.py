"""A whole Python program run on standard inputs in the sandbox (`Language.run_on_stdin`): the
(program, stdin) -> stdout items of output prediction (predict/problems.py).

The program is laid out in the build space, which the runner reads and cannot write, and
each input runs in an exec of its own through `sandbox/capture.py`: as the runner, from an
emptied scratch, with a clean environment, `timeout` killing it at the bound and a file-size
limit stopping a program that prints forever just past what is read back; then every
process of the runner is killed and everything it wrote is removed, so nothing one run (or
a process it forked) leaves reaches the next run. Its standard error is thrown away, its
standard output is a file in the scratch of which the first bytes come back with its size.
The harness never learns more of a run than its exit status and that output."""

from __future__ import annotations

import shlex
from typing import Sequence

from ....sandbox.base import SandboxSession
from ....sandbox.capture import Kept, capture
from ...language import StdinRun
from ..fill import laid_out_for_runner

_ROOT = "python-stdin"  # under the session's sources and build root
_PROGRAM = "program.py"
_SLACK_S = 30.0  # the exec's own bound beyond the program's: the capture's start and clean-up


def run_on_stdin(program: bytes, inputs: Sequence[bytes], session: SandboxSession, *, timeout_s: float,
                 stdout_bytes: int) -> list[StdinRun]:
    out = []
    kept = Kept("stdout", stdout_bytes)
    blocks = stdout_bytes // 512 + 2  # the shell's file-size limit counts 512-byte blocks: just past the bound
    with laid_out_for_runner(session, _ROOT, {_PROGRAM: program}, "a program to run on its inputs") as root:
        scratch = shlex.quote(session.scratch_root)
        run = (f"(ulimit -f {blocks}; exec env -i PATH=/usr/bin:/bin HOME=/nonexistent LANG=C.UTF-8 "
               f"PYTHONDONTWRITEBYTECODE=1 timeout -s KILL {timeout_s:g} python3 -I {root}/{_PROGRAM} "
               f">{scratch}/{kept.name} 2>/dev/null); code=$?")
        for stdin in inputs:
            ran, got = capture(session, run, [kept], timeout_s + _SLACK_S, stdin=stdin)
            if ran.timed_out or got is None:
                out.append(StdinRun(exit_code=None, stdout=b""))
            else:
                out.append(StdinRun(exit_code=got.exit_code, stdout=got.contents[0], over=got.truncated(0)))
    return out
