"""Warm sandbox sessions, each handed to one piece of work at a time (a trial).

Starting a container takes longer than a gold trial's agent round, and removing one sits
at the end of every trial; a run of many trials pays that once per worker instead. A
session given back is emptied (`SandboxSession.reset`: build tree, scratch, temporary
files, the runner's processes, every staged source) in the background before anyone else
gets it, and one that cannot be emptied is closed."""

from __future__ import annotations

import threading

from .base import Sandbox, SandboxSession


class SessionPool:
    def __init__(self, box: Sandbox):
        self.box = box
        self._idle: list[SandboxSession] = []
        self._emptying = 0
        self._changed = threading.Condition()
        self.closed = False

    def acquire(self, label: str = "") -> SandboxSession:
        """An emptied session, or a new one (labelled for the work that opened it). A
        session being emptied is waited for: it is ready sooner than a new container."""
        with self._changed:
            while not self._idle and self._emptying:
                self._changed.wait()
            if self._idle:
                return self._idle.pop()
        return self.box.session(label)

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
