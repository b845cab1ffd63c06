"""The runner's exec beside the builder's: a round whose candidate runs as a server of its
own (Python's and JavaScript's proxies) starts the servers' exec on a thread, runs the tests
in the builder's, then ends the runner's (`end_runner`)."""

from __future__ import annotations

import shlex
import threading

from .base import ExecResult, Role, SandboxSession
from .capture import leave_nothing

# How long the servers' exec may outlive the test run before another exec ends it: an
# honest server exits as soon as the test process closes its end.
SERVER_GRACE_S = 2.0


def servers_script(session: SandboxSession, last_pipe: str, wait_s: float, starts: list[str], until: str) -> str:
    """The runner's shell: empty its scratch folder, wait (up to `wait_s`) for the round's
    last pipe (the builder makes the pipes last), start the servers (`starts`, each a command
    put in the background), run `until` (the shell's wait for the servers, or for the
    builder's word that the tests have run), then end and reap every process of the
    runner's (a fork bomb's children too: a second kill finds what forked during the first)
    and remove what it made (capture.leave_nothing): its exit status is 0 only when nothing
    of it is left. The container's first process reaps nothing: an unreaped server would be
    left as the runner's."""
    q = shlex.quote
    return (f"cd {q(session.scratch_root)} && find . -mindepth 1 -delete 2>/dev/null; "
            f"n={int(wait_s / 0.005)}; until [ -p {q(last_pipe)} ] || [ $n -eq 0 ]; do n=$((n-1)); sleep 0.005; done; "
            f"{' '.join(f'{s} &' for s in starts)} {until}; "
            f"kill -9 -1 2>/dev/null; wait; kill -9 -1 2>/dev/null; {leave_nothing(session)}")


class Servers(threading.Thread):
    """The runner's exec, beside the test run."""

    def __init__(self, session: SandboxSession, script: str, timeout_s: float, name: str = "servers"):
        super().__init__(daemon=True, name=name)
        self.session, self.script, self.timeout_s = session, script, timeout_s
        self.result: ExecResult | None = None
        self.error: BaseException | None = None

    def run(self) -> None:
        try:
            self.result = self.session.exec(["sh", "-c", self.script], role=Role.runner, timeout_s=self.timeout_s)
        except BaseException as exc:  # raised again on the caller's thread
            self.error = exc


def end_runner(session: SandboxSession, servers: Servers) -> None:
    """Once the test run has ended: the servers' exec ended, by its own clean-up, or else
    (a server that outlives the test process, a shell the candidate ended) by the session
    (`end_runner_commands`) and a clean-up exec of its own (capture.leave_nothing); the
    session made new where neither made sure that nothing of the runner's is left. Nothing
    waits for the servers' exec's own time limit, which is the round's and more."""
    servers.join(SERVER_GRACE_S)
    ended = None if servers.is_alive() else servers.result
    clean = ended is not None and not ended.timed_out and ended.exit_code == 0
    if not clean:
        session.end_runner_commands()
        clean = session.exec(["sh", "-c", leave_nothing(session)], role=Role.runner, timeout_s=30).exit_code == 0
        servers.join()
    session.runner_dirty = not clean
    if session.runner_dirty:
        session.make_fit()
