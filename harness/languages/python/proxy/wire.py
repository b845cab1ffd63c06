"""Frames on a pipe: one message a line, read and written against a deadline, so that a
peer that stops reading or writing costs the other side its deadline and no more; and the
two named pipes a sandbox's two users meet on (`meet`)."""

from __future__ import annotations

import errno
import os
import select
import sys
import time

from .codec import MAX_FRAME, Malformed

_CHUNK = 1 << 16


# Levels of Python's stack a message needs of its own, written and its answer read: JSON's
# parser takes one a level (three a level of a dict: about 200 for the codec's 64), the
# codec two or three a level, the pipe's calls a few.
ROOM = 500


class Room:
    """`with room:` (one a side) a message is written and its answer read with room on the
    stack, so that a side that recursed to its limit (an infinite recursion through a
    callable the test lent the candidate) never stops between the two, which would leave the
    sides out of step; its own code still raises the RecursionError it would in one process.

    The outermost message raises the recursion limit by ROOM, and lowers it after: from a
    depth two frames under the limit, which it checks first, as lowering a limit to the
    depth it is lowered at fails. One sent while another waits (a call back's) raises
    nothing, so that calls going back and forth for ever cannot raise it without bound: it
    must find ROOM // 2 frames left. Either check is a RecursionError before anything is sent."""

    def __init__(self) -> None:
        self.open = 0
        self.limit = 0

    def __enter__(self) -> None:
        _deeper(ROOM // 2 if self.open else 1)
        if not self.open:
            self.limit = sys.getrecursionlimit()
            sys.setrecursionlimit(self.limit + ROOM)
        self.open += 1

    def __exit__(self, *info: object) -> None:
        self.open -= 1
        if not self.open:
            sys.setrecursionlimit(self.limit)


def _deeper(frames: int) -> int:
    return _deeper(frames - 1) if frames else 0


class Closed(Exception):
    """The peer's end of the pipe is closed."""


class TimedOut(Exception):
    """The deadline passed before a whole frame was read or written."""


def _wait(fd: int, for_write: bool, deadline: float | None) -> None:
    left = None if deadline is None else deadline - time.monotonic()
    if left is not None and left <= 0:
        raise TimedOut
    ready = select.select([], [fd], [], left) if for_write else select.select([fd], [], [], left)
    if not any(ready):
        raise TimedOut


class Reader:
    def __init__(self, fd: int):
        self.fd = fd
        self.buffer = bytearray()

    def frame(self, deadline: float | None) -> bytes:
        """The next line without its newline; Malformed once MAX_FRAME bytes hold none."""
        while True:
            end = self.buffer.find(b"\n")
            if end >= 0:
                line = bytes(self.buffer[:end])
                del self.buffer[: end + 1]
                return line
            if len(self.buffer) > MAX_FRAME:
                raise Malformed("a frame over the size bound")
            _wait(self.fd, False, deadline)
            try:
                chunk = os.read(self.fd, _CHUNK)
            except OSError as exc:
                raise Closed(str(exc)) from None
            if not chunk:
                raise Closed("end of stream")
            self.buffer += chunk


def write(fd: int, data: bytes, deadline: float | None) -> None:
    """All of `data`, on a descriptor the caller set non-blocking where it has a deadline."""
    view = memoryview(data)
    while view:
        try:  # a pipe with room takes a frame at once: no wait asked of the kernel first
            done = os.write(fd, view)
        except BlockingIOError:
            _wait(fd, True, deadline)
            continue
        except OSError as exc:  # BrokenPipeError among them: the reader is gone
            raise Closed(str(exc)) from None
        view = view[done:]


def _open_writer(path: str) -> int | None:
    """A named pipe's write end, or None while it has no reader."""
    try:
        return os.open(path, os.O_WRONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as exc:
        if exc.errno != errno.ENXIO:  # ENXIO: no reader
            raise Closed(str(exc)) from None
    return None


def meet(read_path: str, write_path: str, deadline: float | None) -> tuple[int, int]:
    """The ends of two named pipes that the peer opens the other way round: (read, write).
    Nothing blocks: the read end opens at once, and the write end as soon as the peer has
    its read end open (before the deadline, or TimedOut), which each side opens first. A
    read end that no writer has opened yet waits for one (Linux reports no end of stream
    before a first writer), and sees the end at once when its writer dies. A peer that came
    and went before this side's write end opened (a server whose module failed at import
    answers and exits at once) left its answer, or its end, on the read end: the write end
    is then the null device, and the reader finds what the peer said, then the end."""
    read_fd = os.open(read_path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        while True:
            # The peer opens its read end before it writes: once it has written (or come and
            # gone), a write end that still finds no reader finds no peer.
            said = bool(select.select([read_fd], [], [], 0)[0])
            write_fd = _open_writer(write_path)
            if write_fd is None and said:
                write_fd = os.open(os.devnull, os.O_WRONLY | os.O_CLOEXEC)
            if write_fd is not None:
                break
            if deadline is not None and time.monotonic() > deadline:
                raise TimedOut
            time.sleep(0.002)
    except BaseException:
        os.close(read_fd)
        raise
    os.set_blocking(read_fd, True)
    return read_fd, write_fd
