"""pytest started warm: where a sandbox keeps processes (`SandboxSession.keeps_processes`,
Docker's), the builder's first Python round in a container starts a warm pytest
(assets/warm_pytest.py) that imports pytest once and forks each later round's test run, so
that a round no longer pays pytest's import (about half of a bare pytest run's CPU in the
sandbox). Elsewhere, and for a task judged in one process, each round starts pytest afresh.

A forked run is the run a fresh `python3 -s -m pytest` would be: the same arguments, folder,
environment and `sys.path`, stdin empty, its console the same file, its exit status passed
on as the shell gives it; its transcript is the same (tests/languages/python checks it).

Why it may live on: the warm pytest is the builder's and runs nothing of a candidate's.
Its children import only the task's tests and the proxy (proxy/), which runs no code of
the candidate's in the test process; the candidate runs as the runner, which can neither
signal, trace nor read a builder's process, nor reach its pipes (a folder of the builder's,
0700). A round that runs a candidate's module in the builder's own process (inprocess.py)
would reach it: such a round never runs in a container that keeps one (the session is
made new first), and a container where one ran starts one only after the builder's
emptying has found no process of the builder's left (sandbox/docker.py). The session
keeps its pid (`SandboxSession.kept`), so that emptying spares it and checks it is alive;
one that died stays a zombie there, and the container is made new at the next reset.

A run whose warm pytest ended before it answered (killed from outside, as the test process
itself may be) is an error of the round, as a killed test process is."""

from __future__ import annotations

import functools
import shlex

from ...paths import package_file
from ...sandbox.base import SandboxSession
from ...sandbox.warm import settle as settle_warm
from ...sandbox.warm import warm_script

STAGED = ".python-warm"  # the program, staged beside the task's files (a name no slug has)
_PROGRAM = "warm_pytest.py"
_PYTHON = "python3"
# The test run's environment, warm or fresh (PYTHONPATH aside): `env -i` drops the rest.
ENV = "PATH=/usr/bin:/bin PYTHONDONTWRITEBYTECODE=1 PYTEST_DISABLE_PLUGIN_AUTOLOAD=1 HOME=/nonexistent LANG=C.UTF-8"
_KEPT = "pytest"  # its name among the session's kept processes


@functools.cache
def staged_files() -> dict[str, bytes]:
    """The program, for `session.stage(STAGED, ...)`."""
    return {_PROGRAM: package_file("languages", "python", "assets", _PROGRAM).read_bytes()}


def fresh_script(cwd: str, pythonpath: str, console: str, command: str) -> str:
    """The builder's shell that runs `command` in `cwd` in a test run's environment (its
    PYTHONPATH `pythonpath`, or none), stdin empty, its output in `console`, and leaves its
    exit status in $code."""
    q = shlex.quote
    path = f"PYTHONPATH={q(pythonpath)} " if pythonpath else ""
    return f"cd {q(cwd)} && env -i {path}{ENV} {command} >{q(console)} 2>&1 </dev/null; code=$?"


def pytest_script(session: SandboxSession, cwd: str, pythonpath: str, console: str, args: list[str],
                  warm: bool, preload: tuple[str, str] | None = None) -> str:
    """`fresh_script` of `python3 -s -m pytest ARGS`, or the same run forked from the
    session's warm pytest where `warm` and the session keeps processes (started here when it
    has none alive; `preload`: a folder and a module of it that its runs import, imported
    once with pytest)."""
    q = shlex.quote
    fresh = fresh_script(cwd, pythonpath, console, f"{_PYTHON} -s -m pytest {' '.join(q(a) for a in args)}")
    if not (warm and session.keeps_processes):
        return fresh
    folder = f"{session.build_root}/{STAGED}"
    program = q(f"{session.src_root}/{STAGED}/{_PROGRAM}")
    extra = "".join(f" {q(p)}" for p in preload or ())
    # A reply is read to its end, where the warm pytest closes the pipe: the next open of
    # it then never meets a writer of an earlier reply.
    return warm_script(session, _KEPT, folder, f"env -i {ENV} {_PYTHON} -s {program} {q(folder)}{extra}",
                       " ".join(q(line) for line in (cwd, pythonpath, console, *args)), "USR1",
                       f"{{ read -r code; read -r _; }} <{q(folder)}/reply", fresh)


def settle(session: SandboxSession, output: bytes) -> bool:
    """warm.settle for the warm pytest."""
    return settle_warm(session, _KEPT, output)


def keeps_one(session: SandboxSession) -> bool:
    """Whether the session's container holds a warm pytest."""
    return _KEPT in session.kept
