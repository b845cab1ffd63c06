"""Sandbox sessions held warm from one piece of work to the next, and always closed. Starting
a container takes longer than a gold trial's agent round, and removing one sits at the end
of every trial; work that holds its sessions pays that once per worker instead. Two kinds
of work, two ways to hold them:

- Unrelated pieces of work (a run's trials) share a `SessionPool`: each takes a session
  (`lease`) and gives it back, and a session given back is emptied
  (`SandboxSession.reset`: build tree, scratch, temporary files, the runner's processes,
  every staged source) in the background before anyone else gets it (a Docker session
  leaves its builder's part to the next command it runs, before anything of that command);
  one that cannot be emptied is closed.
- A batch of related work (suite and curriculum validation, the verifier's candidates)
  keeps one session per worker for every unit it takes, not emptied between them, since a
  build tree kept warm is what makes the next unit cheap (harness/executor: `Slot`)."""

from __future__ import annotations

import threading
from typing import Callable, TypeVar

from ..errors import SandboxUnavailable
from .base import Sandbox, SandboxSession

Result = TypeVar("Result")


class SessionPool:
    def __init__(self, box: Sandbox):
        self.box = box
        self._idle: list[SandboxSession] = []  # of every language: each takes its own
        self._emptying = 0
        self._changed = threading.Condition()
        self.closed = False

    def acquire(self, label: str = "", language: str | None = None) -> SandboxSession:
        """An emptied session of `language` (a container of its image), or a new one
        (labelled for the work that opened it). A session being emptied is waited for: it is
        ready sooner than a new container."""
        with self._changed:
            while not self._fits(language) and self._emptying:
                self._changed.wait()
            fit = self._fits(language)
            if fit is not None:
                self._idle.remove(fit)
                return fit
        return self.box.session(label, language)

    def _fits(self, language: str | None) -> SandboxSession | None:
        """An idle session of `language`; of any, for work that names none."""
        return next((s for s in reversed(self._idle) if language is None or s.language == language), None)

    def release(self, session: SandboxSession, reusable: bool = True) -> None:
        """Take a session back: emptied for the next one in the background, or closed now
        when it broke or the pool is closed (or later, when it cannot be emptied)."""
        with self._changed:
            reusable = reusable and not self.closed
            if reusable:
                self._emptying += 1
        if not reusable:
            session.close()
            return
        threading.Thread(target=self._empty, args=(session,), name="sandbox-reset", daemon=True).start()

    def lease(self, label: str, language: str | None = None) -> "SessionLease":
        return SessionLease(self, label, language)

    def _empty(self, session: SandboxSession) -> None:
        try:
            session.reset()
            ok = True
        except Exception:  # SandboxUnavailable, or anything else: not handed on either way
            ok = False
        with self._changed:
            keep = ok and not self.closed
            if keep:
                self._idle.append(session)
        if not keep:
            session.close()
        # Counted down last: whoever waits for this session finds it idle or closed.
        with self._changed:
            self._emptying -= 1
            self._changed.notify_all()

    def close(self) -> None:
        """Close every session given back, once those being emptied are done."""
        with self._changed:
            self.closed = True
            while self._emptying:
                self._changed.wait()
            idle, self._idle = self._idle, []
        for session in idle:
            session.close()


class SessionLease:
    """One piece of work's session: taken from the pool in the background, so that starting
    a container (when none is idle) overlaps what the work does first (a trial's first agent
    round); replaced once if it breaks under use (a dead container); given back by `close`."""

    def __init__(self, pool: SessionPool, label: str, language: str | None = None):
        self.pool, self.label, self.language = pool, label, language
        self.session: SandboxSession | None = None
        self.error: BaseException | None = None
        self._opening = threading.Thread(target=self._open, name="sandbox-open", daemon=True)
        self._opening.start()

    def _open(self) -> None:
        try:
            self.session = self.pool.acquire(self.label, self.language)
        except BaseException as exc:  # handed to the work's thread in use()
            self.error = exc

    def use(self, work: Callable[[SandboxSession], Result]) -> Result:
        self._opening.join()
        if self.error is not None:
            raise self.error
        session = self.session
        assert session is not None  # _open took one or kept the error raised above
        try:
            return work(session)
        except SandboxUnavailable:
            self.session = None
            self.pool.release(session, reusable=False)
            self.session = self.pool.acquire(self.label, self.language)
            return work(self.session)

    def close(self) -> None:
        self._opening.join()
        if self.session is not None:
            self.pool.release(self.session)
            self.session = None
