"""Aider's driver processes as the harness sees them: a pool of warm processes for one
profile, running `driver.py` in Aider's own environment, and each process's end of the
JSON-lines protocol, every wait with a timeout.

One driver process imports Aider; the others are forked from it, and each serves one
session after another, each in a forked child, so a trial pays for a fork, not for an
import. The process that imports Aider is kept for the whole harness process, so a process
that runs one evaluation after another (a loop's, a test session's) imports it once."""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import queue
import signal
import socket
import subprocess
import tempfile
import threading
from pathlib import Path

from ...errors import InfraError, InfraKind
from ...paths import package_file
from .env import ensure_aider_env
from .profile import AiderProfile


def driver_env() -> dict[str, str]:
    env = dict(os.environ)
    env.update(
        LITELLM_LOCAL_MODEL_COST_MAP="True",  # litellm's bundled table, no download
        AIDER_ANALYTICS="false",
        AIDER_CHECK_UPDATE="false",
        TERM="dumb",
        NO_COLOR="1",
        PYTHONUNBUFFERED="1",
        PYTHONDONTWRITEBYTECODE="1",
    )
    return env


class _Driver:
    """A driver's end of the protocol: requests go out as JSON lines, replies come back on
    a reader thread so that every wait has a timeout. A paced session asks before each model
    request (`{"op": "pace"}`); the reader thread waits on the limiter and lets it go."""

    def __init__(self, reader, writer, name: str, limiter=None):
        self._writer = writer
        self.replies: queue.Queue = queue.Queue()
        self.ready = False
        self.limiter = limiter
        self._writing = threading.Lock()  # a pace's go and a request may be written at once
        self._ended = threading.Event()  # its output ended: the driver is gone
        threading.Thread(target=self._read, args=(reader,), name=name, daemon=True).start()

    def _read(self, reader) -> None:
        for line in reader:
            try:
                reply = json.loads(line)
            except ValueError:
                self.replies.put({"ok": False, "error": f"unreadable reply from the driver: {line[:200]!r}"})
                continue
            if reply.get("op") == "pace":
                self._pace()
            else:
                self.replies.put(reply)
        self._ended.set()
        self.replies.put(None)

    def _pace(self) -> None:
        try:
            if self.limiter is not None:
                self.limiter.wait()
        except Exception:  # noqa: BLE001  a limiter gone with its node must not hang the round
            pass
        try:
            self._write({"op": "go"})
        except OSError:
            pass  # the driver is gone; its reader sees the end of its output next

    def _write(self, obj: dict) -> None:
        with self._writing:
            self._writer.write((json.dumps(obj) + "\n").encode())
            self._writer.flush()

    @property
    def alive(self) -> bool:
        return not self._ended.is_set()

    def request(self, obj: dict, timeout_s: float) -> dict:
        try:
            self._write(obj)
        except (BrokenPipeError, OSError):
            self.kill()
            raise InfraError(InfraKind.agent, "the Aider driver is gone (its input is closed)") from None
        try:
            reply = self.replies.get(timeout=timeout_s)
        except queue.Empty:
            self.kill()
            raise InfraError(InfraKind.agent, f"the Aider driver did not answer {obj.get('op')!r} within {timeout_s:g} s") from None
        if reply is None:
            self.kill()
            raise InfraError(InfraKind.agent, f"the Aider driver exited ({self.exit_text()})")
        if not reply.get("ok"):
            raise InfraError(InfraKind.agent, f"the Aider driver failed: {reply.get('error')}")
        return reply

    def exit_text(self) -> str:
        return "its output ended"

    def kill(self) -> None:
        raise NotImplementedError

    def close(self) -> None:
        if self.alive:
            try:
                self.request({"op": "close"}, 10)
            except InfraError:
                pass
        self.kill()


class DriverProcess(_Driver):
    """A driver process the harness starts, on its pipes; it pays for the Aider import."""

    def __init__(self, python: Path, log_path: Path | None = None):
        with open(log_path, "ab") if log_path else contextlib.nullcontext(subprocess.DEVNULL) as log:
            self.proc = subprocess.Popen(
                [str(python), "-I", str(package_file("agents", "aider", "driver.py"))],
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=log,
                env=driver_env(), cwd="/", start_new_session=True,  # Ctrl-C is the harness's to handle
            )
        super().__init__(self.proc.stdout, self.proc.stdin, f"aider-driver-{self.proc.pid}")
        self.forking = threading.Lock()  # it answers one request at a time, and pools share it

    @property
    def alive(self) -> bool:
        return self.proc.poll() is None

    def exit_text(self) -> str:
        return f"code {self.proc.poll()}"

    def kill(self) -> None:
        if self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                self.proc.kill()
        try:
            self.proc.wait(5)
        except subprocess.TimeoutExpired:
            pass


class ForkedDriver(_Driver):
    """A driver forked from a warm one (the `fork` op), on a Unix socket: no import of its
    own. It leads a process group of its own, and ends when the socket closes, so a
    harness that dies leaves none behind."""

    def __init__(self, pid: int, sock: socket.socket, limiter=None):
        self.pid = pid
        self._sock = sock
        super().__init__(sock.makefile("rb"), sock.makefile("wb"), f"aider-driver-{pid}", limiter)

    def kill(self) -> None:
        if self.alive:
            try:
                os.killpg(self.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        try:
            self._sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self._sock.close()
        self._ended.wait(5)


class _WarmDrivers:
    """The driver that imported Aider, one per Aider environment, shared by every pool of
    this process. It is closed when the process exits; a process that dies first closes
    its input, and a driver whose input ends exits."""

    def __init__(self):
        self._lock = threading.Lock()
        self._drivers: dict[Path, DriverProcess] = {}
        self._pid = os.getpid()

    def get(self, python: Path, log_path: Path | None) -> DriverProcess:
        """The warm driver of `python`, started (its output to `log_path`) if there is none."""
        with self._lock:
            if self._pid != os.getpid():  # a forked copy of the harness must not write to its parent's drivers
                self._drivers, self._pid = {}, os.getpid()
            warm = self._drivers.get(python)
            if warm is None or not warm.alive:
                warm = self._drivers[python] = DriverProcess(python, log_path)
            return warm

    def close(self) -> None:
        with self._lock:
            drivers = list(self._drivers.values()) if self._pid == os.getpid() else []
            self._drivers.clear()
        for driver in drivers:
            driver.kill()  # it holds nothing to save, and a polite close would wait out an import


_WARM = _WarmDrivers()
atexit.register(_WARM.close)


class DriverPool:
    """Driver processes for one Aider version, handed to one trial at a time. Each is
    forked from the process's warm driver (_WarmDrivers), which pays for the Aider import
    (about five seconds of CPU), so a run of N workers imports Aider once, not N times
    over the same cores at the start, and a later run in the same process not at all. A
    driver that misbehaved is killed rather than given back. With a `limiter` (anything
    with `wait()`), every model request of its sessions waits for it first."""

    def __init__(self, profile: AiderProfile, log_path: Path | None = None, limiter=None):
        self.profile = profile
        self.log_path = log_path
        self.limiter = limiter
        self._python: Path | None = None
        self._idle: list[_Driver] = []
        self._all: set[_Driver] = set()
        self._lock = threading.Lock()
        self.closed = False

    @property
    def python(self) -> Path:
        if self._python is None:
            self._python = ensure_aider_env(self.profile.aider_version)
        return self._python

    def prewarm(self) -> None:
        """Start the warm driver now, so its import overlaps the run's other setup (the
        trials' drivers are forked from it when they first ask)."""
        self._warm_driver()

    def _warm_driver(self) -> DriverProcess:
        return _WARM.get(self.python, self.log_path)

    def _fork(self) -> ForkedDriver:
        start_s = self.profile.timeouts.start_s
        warm = self._warm_driver()
        with warm.forking:
            if not warm.ready:
                reply = warm.request({"op": "ping"}, start_s)
                if reply.get("aider_version") != self.profile.aider_version:
                    warm.kill()
                    raise InfraError(InfraKind.agent, f"the Aider environment runs {reply.get('aider_version')}, "
                                                      f"the profile wants {self.profile.aider_version}")
                warm.ready = True
            with tempfile.TemporaryDirectory(prefix="harness-driver-") as tmp:
                path = os.path.join(tmp, "driver.sock")
                with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as listener:
                    listener.bind(path)
                    listener.listen(1)
                    listener.settimeout(start_s)
                    # The fork takes this run's log and environment, not the ones the
                    # warm driver started with for an earlier run.
                    pid = warm.request({"op": "fork", "socket": path, "env": driver_env(),
                                        "log": str(self.log_path) if self.log_path else None}, start_s)["pid"]
                    try:
                        conn, _ = listener.accept()
                    except OSError:
                        raise InfraError(InfraKind.agent, f"a forked Aider driver did not connect within {start_s:g} s") from None
        conn.settimeout(None)
        driver = ForkedDriver(pid, conn, self.limiter)
        driver.ready = True
        with self._lock:
            # The warm driver outlives the run, so a fork may finish after the run was
            # stopped (Ctrl-C while Aider was still importing): that driver is not used.
            stopped = self.closed
            if not stopped:
                self._all.add(driver)
        if stopped:
            driver.kill()
            raise InfraError(InfraKind.interrupted, "the run is stopping")
        return driver

    def acquire(self) -> _Driver:
        if self.closed:
            raise InfraError(InfraKind.interrupted, "the run is stopping")
        with self._lock:
            driver = self._idle.pop() if self._idle else None
        if driver is None or not driver.alive:
            driver = self._fork()
        return driver

    def release(self, driver: _Driver, healthy: bool) -> None:
        with self._lock:
            if healthy and driver.alive and not self.closed:
                self._idle.append(driver)
                return
            self._all.discard(driver)
        driver.kill()

    def _take_all(self) -> list[_Driver]:
        self.closed = True
        with self._lock:
            drivers = list(self._all)
            self._all.clear()
            self._idle.clear()
        return drivers

    def kill_all(self) -> None:
        """Stop every driver now (Ctrl-C): a trial waiting on one gets an error at once."""
        for driver in self._take_all():
            driver.kill()

    def close(self) -> None:
        for driver in self._take_all():
            driver.close()
