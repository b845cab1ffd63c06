"""The runner's exec beside the builder's: a round whose candidate runs as a server of its
own (Python's and JavaScript's proxies) starts the servers' exec on a thread, runs the tests
in the builder's, then ends the runner's (`end_runner`)."""

from __future__ import annotations

import threading

from .base import ExecResult, Role, SandboxSession
from .capture import leave_nothing

# How long the servers' exec may outlive the test run before another exec ends it: an
# honest server exits as soon as the test process closes its end.
SERVER_GRACE_S = 2.0


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
    (a server that outlives the test process, a shell the candidate ended) by a clean-up
    exec of its own, which ends it too (capture.leave_nothing); the session made new where
    neither made sure that nothing of the runner's is left."""
    servers.join(SERVER_GRACE_S)
    ended = None if servers.is_alive() else servers.result
    clean = ended is not None and not ended.timed_out and ended.exit_code == 0
    if not clean:
        clean = session.exec(["sh", "-c", leave_nothing(session)], role=Role.runner, timeout_s=30).exit_code == 0
        servers.join()
    session.runner_dirty = not clean
    if session.runner_dirty:
        session.make_fit()
