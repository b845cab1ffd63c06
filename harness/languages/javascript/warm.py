"""Jest started warm: in a session that keeps processes (Docker's), the builder's first
JavaScript round in a container starts a warm Jest (assets/warm_jest.js) that loads Jest and
Babel once and runs each later round's tests in its own process, so that a round no longer
pays Jest's and Babel's start (about two thirds of a bare run's CPU). The protocol is the
sandbox's (sandbox/warm.py); a test script other than `jest` and plain arguments runs afresh.

A warm run is the run a fresh `jest ARGS` would be: the same arguments (the script's, as the
shell expands them, and the round's), folder and console file, its exit status as jest-cli
gives it; what the round's files loaded (the reporter, the globalSetup, the exercise's Babel
configuration) is loaded afresh by the next run. Jest and Babel stay loaded, and Jest's
in-process state of a run ends with the run (runCLI makes its contexts anew).

Why it may live on: the warm Jest is the builder's and runs nothing of a candidate's. Jest
runs the spec and the proxy's client (assets/proxy.js) in contexts of its own, and the
candidate, which runs as the runner in a process of its own, reaches them only through the
values the client decodes (data, and handles whose every use is a request over the pipes);
the runner can neither signal, trace nor read a builder's process, nor reach its pipes (a
folder of the builder's, 0700). A run that outlasts the round's limit is killed with the
warm Jest; a run whose warm Jest ended before it answered is an error of the round, as a
killed test process is."""

from __future__ import annotations

import functools
import re
import shlex

from ...paths import package_file
from ...sandbox.base import SandboxSession
from ...sandbox.warm import settle as settle_warm
from ...sandbox.warm import warm_script

STAGED = ".javascript-warm"  # the program, staged beside the task's files (a name no slug has)
_PROGRAM = "warm_jest.js"
_KEPT = "jest"  # its name among the session's kept processes
_PLAIN = re.compile(r"jest((?: [A-Za-z0-9_./*=-]+)*)")


@functools.cache
def staged_files() -> dict[str, bytes]:
    """The program, for `session.stage(STAGED, ...)`."""
    return {_PROGRAM: package_file("languages", "javascript", "assets", _PROGRAM).read_bytes()}


def jest_script(session: SandboxSession, node_modules: str, env: str, script: str, args: str,
                request: tuple[str, ...], limit: float, fresh: str) -> str:
    """The builder's shell that runs the test script `script` with the round's `args` (shell
    words) on the session's warm Jest, started here where it has none alive, or `fresh`
    (which leaves its status in $code) where the script is not `jest` with plain arguments
    or the session keeps no processes. `env`: the warm Jest's environment, as `env -i`
    takes it; `request`: the run's cwd, console file, round root, token and record path
    (shell words)."""
    plain = _PLAIN.fullmatch(script.strip())
    if plain is None or not session.keeps_processes:
        return fresh
    q = shlex.quote
    folder = f"{session.build_root}/{STAGED}"
    program = q(f"{session.src_root}/{STAGED}/{_PROGRAM}")
    # The script's own words unquoted, so that the shell expands them as `sh -c` would.
    words = f"{' '.join(request)}{plain.group(1)} {args}"
    wait = f"code=$(timeout -s KILL {limit:g} cat {q(folder)}/reply) || {{ kill -9 $pid; code=137; }}"
    return warm_script(session, _KEPT, folder, f"env -i {env} node {program} {q(folder)} {q(node_modules)}",
                       words, "USR2", wait, fresh)


def settle(session: SandboxSession, output: bytes) -> bool:
    """warm.settle for the warm Jest."""
    return settle_warm(session, _KEPT, output)

