"""A warm test process kept by a session: the builder's process that has loaded a test
framework once and runs each round's tests on request (Python's warm pytest, JavaScript's
warm Jest: languages/<name>/warm.py say why each may live on). This is the builder's side of
their shared protocol, in the round's shell:

- The session keeps the process's pid under a name (`SandboxSession.kept`), so that the
  builder's emptying spares it and checks it is alive. A kept pid whose process is not
  asleep or running is a dead one (a zombie keeps its pid for good) or a stopped one:
  another is started, and its pid printed on a line of the script's own (or `none`: the
  round then runs its fresh command).
- FOLDER (the builder's, 0700) holds the named pipe `reply` and the file `request`. A new
  process writes `ready` (or `failed`) on the reply pipe; for a round, the shell writes the
  request, sends the signal and reads the run's exit status from the pipe into $code, which
  the process holds open while it runs, so that its death ends the wait. A wait that ends
  without a status is printed as the process lost (`settle`)."""

from __future__ import annotations

import re
import shlex

from .base import SandboxSession


def _started(name: str) -> str:
    return f"@@harness-warm-{name}"


def _lost(name: str) -> str:
    return f"@@harness-warm-{name}-lost"


def warm_script(session: SandboxSession, name: str, folder: str, launch: str, request: str, signal: str,
                wait: str, fresh: str) -> str:
    """The round's shell on the session's warm process `name` (`launch`, a command that
    starts one, is run where there is none alive): `request` (shell words, one a line of the
    request) is written, `signal` sent, and `wait` (a command that reads the reply pipe's
    status into $code) run; where no process could be started, `fresh` (which leaves its
    status in $code)."""
    w = shlex.quote(folder)
    start = (f"pid=; mkdir -p -m 700 {w} && rm -f {w}/reply && mkfifo -m 600 {w}/reply && "
             f"{{ {launch} </dev/null >/dev/null 2>&1 & pid=$!; }} && "
             f"{{ read -r s; read -r _; }} <{w}/reply; [ \"$s\" = ready ] || pid=; echo \"{_started(name)} ${{pid:-none}}\"")
    return (f"pid={session.kept.get(name, '')}; s=; [ -z \"$pid\" ] || read -r _ _ s _ 2>/dev/null </proc/$pid/stat; "
            f"case $s in [RSD]) ;; *) {start} ;; esac; "
            f"if [ -n \"$pid\" ]; then [ -p {w}/reply ] || {{ mkdir -p -m 700 {w} && mkfifo -m 600 {w}/reply; }}; "
            f"code=; printf '%s\\n' {request} >{w}/request && kill -{signal} $pid && {wait}; "
            f"[ -n \"$code\" ] || echo {_lost(name)}; else {fresh}; fi")


def settle(session: SandboxSession, name: str, output: bytes) -> bool:
    """What the builder's script printed of its warm process `name` (its own lines, never a
    file it read back, which could hold what a candidate made the tests print): a new one,
    kept by the session, or none; whether the one it ran on ended before it answered."""
    text = output.decode(errors="replace")
    named = re.search(rf"^{re.escape(_started(name))} (\d+|none)$", text, re.M)
    if named is not None:
        session.kept.pop(name, None)
        if named.group(1) != "none":
            session.kept[name] = int(named.group(1))
    lost = f"\n{_lost(name)}\n" in f"\n{text}"
    if lost:
        session.kept.pop(name, None)
    return lost
