"""The local backend, for machines without Docker: the same build with the host's
toolchain. Under bubblewrap (no network, read-only root, private /tmp, the build tree
read-only while candidate code runs) when `bwrap` is installed, else plain subprocesses;
both with rlimits and, as root, an unprivileged user. It says which in `isolation`."""

from __future__ import annotations

import ctypes
import glob
import itertools
import os
import resource
import select
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path

from ..errors import SandboxUnavailable
from ..fs import empty_folder, written_atomically
from ..hashing import sha256_bytes
from ..paths import cache_dir, package_file
from . import cpu_group
from .base import CappedBuffer, ExecResult, Role, Sandbox, SandboxLimits, SandboxSession
from .capture import leave_nothing

_main_lock = threading.Lock()
_sessions_made = itertools.count()
# Far above any account a system hands out, and below 2**31 (some tools read uids as int).
_SESSION_UID_BASE = 1 << 30
# The builder's commands make folders 0711 and files 0600 (an executable 0711): the runner
# runs the test binary by its name and reads nothing else the builder made.
BUILDER_UMASK = 0o066


def session_uid() -> int:
    """A user of its own for one session, unique among the sessions alive on this machine
    (this process's pid and a per-process counter). RLIMIT_NPROC counts every process of a
    user, so with one shared user a fork bomb in one session would starve the compilers of
    every other session, here or in a concurrent harness, and their trials would fail for
    a reason that is not theirs."""
    return _SESSION_UID_BASE + ((os.getpid() & 0x3FFFFF) << 8) + (next(_sessions_made) & 0xFF)


def host_test_main() -> str:
    """The harness test main compiled with the host's compiler, once per content."""
    return _host_object("test_main")


def host_verdict_channel() -> str:
    """The verdict channel (languages/cpp/assets/verdict_channel.cpp) compiled with the host's compiler."""
    return _host_object("verdict_channel", strip=True)


def _host_object(name: str, strip: bool = False) -> str:
    """assets/<name>.cpp compiled as the image's Dockerfile compiles it, once per content."""
    src = package_file("languages", "cpp", "assets", f"{name}.cpp")
    flags = ["-std=c++17", "-O1"]
    digest = sha256_bytes(src.read_bytes() + " ".join(flags).encode() + (b" strip" if strip else b""))[:12]
    obj = cache_dir() / "test-main" / f"{name}-{digest}.o"
    with _main_lock:
        if not obj.exists():
            obj.parent.mkdir(parents=True, exist_ok=True)
            with written_atomically(obj) as tmp:
                proc = subprocess.run(
                    ["g++", *flags, "-c", str(src), "-o", str(tmp)], capture_output=True, text=True
                )
                if proc.returncode == 0 and strip:
                    proc = subprocess.run(["strip", "--discard-all", str(tmp)], capture_output=True, text=True)
                if proc.returncode != 0:
                    raise SandboxUnavailable(f"cannot compile {src.name} with the host g++: {proc.stderr.strip()[:300]}")
            os.chmod(obj, 0o644)
            os.chmod(obj.parent, 0o755)
    return str(obj)


# Where CMake's find_package(Catch2) looks on a Debian-like host, in its search order.
_CATCH2_PACKAGE_DIRS = ("/usr/local/lib/cmake/Catch2", "/usr/local/share/cmake/Catch2", "/usr/lib/*/cmake/Catch2",
                        "/usr/lib/cmake/Catch2", "/usr/share/cmake/Catch2")


def host_catch2_with_main() -> bool:
    """Whether the Catch2 package CMake finds on this host provides Catch2WithMain (Debian's
    catch2 does since 2.13.5)."""
    for pattern in _CATCH2_PACKAGE_DIRS:
        for folder in sorted(glob.glob(pattern)):
            config = Path(folder, "Catch2Config.cmake")
            if config.is_file():
                targets = Path(folder, "Catch2Targets.cmake")
                return targets.is_file() and b"Catch2::Catch2WithMain" in targets.read_bytes()
    return False


_CLONE_NEWIPC = 0x08000000
_libc = ctypes.CDLL(None, use_errno=True)  # loaded before any fork: preexec_fn only calls it


def _limit(limits: SandboxLimits, drop_to: int | None, umask: int | None = None, own_ipc: bool = False,
           cpu_procs: str | None = None):
    def apply() -> None:
        if cpu_procs is not None:
            cpu_group.join(cpu_procs)
        if umask is not None:
            os.umask(umask)
        # An IPC namespace of the command's own (root only, before the uid is dropped):
        # SysV objects and POSIX message queues it makes die with it.
        if own_ipc and _libc.unshare(_CLONE_NEWIPC) != 0:
            raise OSError(ctypes.get_errno(), "unshare(CLONE_NEWIPC)")
        mem = limits.memory_mb * 1024 * 1024
        resource.setrlimit(resource.RLIMIT_AS, (mem, mem))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        fsize = limits.scratch_mb * 1024 * 1024
        resource.setrlimit(resource.RLIMIT_FSIZE, (fsize, fsize))
        if drop_to is not None:
            os.setgroups([])
            os.setgid(drop_to)
            os.setuid(drop_to)
        # RLIMIT_NPROC counts every process of the user; only meaningful for a dedicated
        # user, which is what we have when we dropped to the session's own.
        if drop_to is not None:
            resource.setrlimit(resource.RLIMIT_NPROC, (limits.pids, limits.pids))

    return apply


def _kill(pid: int, group: bool = False) -> None:
    try:
        (os.killpg if group else os.kill)(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass  # ended already, or not ours to signal


def _other_pids() -> Iterator[int]:
    """Every process on the host but this one (those of every pid namespace too)."""
    me = os.getpid()
    for entry in os.scandir("/proc"):
        if entry.name.isdigit() and int(entry.name) != me:
            yield int(entry.name)


def _kill_writers(pipe_inode: int) -> None:
    """Kill every process but this one that may write to the pipe: once its command has
    ended and been reaped, only what the command started holds it so (this process's other
    children, forked while it was open here, drop it as they start their command)."""
    target = f"pipe:[{pipe_inode}]"
    for pid in _other_pids():
        try:
            fds = os.listdir(f"/proc/{pid}/fd")
        except OSError:
            continue
        for fd in fds:
            try:
                if os.readlink(f"/proc/{pid}/fd/{fd}") != target:
                    continue
                with open(f"/proc/{pid}/fdinfo/{fd}") as info:
                    flags = int(next(line for line in info if line.startswith("flags:")).split()[1], 8)
            except (OSError, StopIteration, ValueError):
                continue
            if flags & os.O_ACCMODE != os.O_RDONLY:
                _kill(pid)
                break


def _feed(pipe, data: bytes) -> None:
    """Write a command's stdin from a thread, so a command that never reads cannot block
    the harness; closing it is the command's end of input."""
    try:
        pipe.write(data)
    except (BrokenPipeError, ValueError):
        pass  # the command ended without reading it all
    finally:
        try:
            pipe.close()
        except OSError:
            pass


class LocalSession(SandboxSession):
    sandbox: "LocalSandbox"

    def __init__(self, sandbox: "LocalSandbox", label: str, language: str | None = None):
        super().__init__(sandbox, language)
        # As root, a user of its own for each role: the builder owns the staged sources and
        # the build tree, the runner its scratch, and neither reads what the other made.
        root = os.geteuid() == 0
        self.uids = {role: session_uid() if root else None for role in Role}
        self._cpu_procs = cpu_group.make()
        self.source_owner = self.uids[Role.builder]
        self._build = Path(tempfile.mkdtemp(prefix="harness-build-"))
        self._scratch = Path(tempfile.mkdtemp(prefix="harness-scratch-"))
        for d, role in ((self._build, Role.builder), (self._scratch, Role.runner)):
            os.chmod(d, 0o755)
            uid = self.uids[role]
            if uid is not None:
                os.chown(d, uid, uid)
        self.src_root = str(self.staging)
        self.build_root = str(self._build)
        self.scratch_root = str(self._scratch)
        # Under bubblewrap each command has its own /tmp, /dev and IPC namespace, so only the
        # scratch outlives it. Without it /tmp and /dev/shm are the host's: a runner of its
        # own (root) removes what it made there, and gets an IPC namespace per command; one
        # that is the invoking user cannot tell its files from the user's, and leaves them.
        self.runner_spaces = (self.scratch_root,)
        self._own_ipc = not sandbox.bwrap and self.uids[Role.runner] is not None
        if self._own_ipc:
            self.runner_spaces += tuple(p for p in ("/tmp", "/dev/shm") if os.path.isdir(p))
        # The cache may sit under a home folder the unprivileged user cannot enter.
        main_copy = self.staging / ".harness" / "test_main.o"
        main_copy.parent.mkdir()
        os.chmod(main_copy.parent, 0o755)
        shutil.copyfile(host_test_main(), main_copy)
        os.chmod(main_copy, 0o644)
        self.test_main = str(main_copy)
        # The channel's CMake file names the object beside it, as in the image.
        channel = self.staging / ".harness" / "lib" / "verdict_channel.o"
        channel.parent.mkdir()
        os.chmod(channel.parent, 0o755)
        shutil.copyfile(host_verdict_channel(), channel)
        shutil.copyfile(package_file("languages", "cpp", "assets", "verdict_channel.cmake"),
                        channel.parent.parent / "verdict_channel.cmake")
        for f in (channel, channel.parent.parent / "verdict_channel.cmake"):
            os.chmod(f, 0o644)
        self.verdict_channel = str(channel.parent.parent / "verdict_channel.cmake")
        self.catch2_with_main = host_catch2_with_main()
        # The runner's commands still running: under bubblewrap each has a process space of
        # its own, which another command's `kill -9 -1` never reaches.
        self._runner_commands: set[subprocess.Popen] = set()
        self._commands_lock = threading.Lock()

    def _argv(self, argv: list[str], role: Role) -> list[str]:
        if not self.sandbox.bwrap:
            return argv
        if role is Role.builder:
            sources = ["--ro-bind", self.src_root, self.src_root, "--bind", self.build_root, self.build_root]
        else:  # the sources hidden from candidate code, even where the runner is the builder's user
            sources = ["--tmpfs", self.src_root, "--ro-bind", self.build_root, self.build_root]
        return [
            "bwrap", "--unshare-all", "--die-with-parent", "--new-session",
            "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp",
            *sources,
            "--bind", self.scratch_root, self.scratch_root,
            "--chdir", "/",
            "--", *argv,
        ]

    def exec(self, argv: list[str], *, role: Role, timeout_s: float, cap: int | None = None,
             stdin: bytes | None = None) -> ExecResult:
        start = time.monotonic()
        if role is Role.runner:
            self.runner_dirty = True
        env = {"PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8", "HOME": "/tmp"}
        try:
            proc = subprocess.Popen(
                self._argv(argv, role), stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL if stdin is None else subprocess.PIPE,
                env=env, cwd="/", start_new_session=True,
                preexec_fn=_limit(self.limits, self.uids[role], BUILDER_UMASK if role is Role.builder else None,
                                  own_ipc=self._own_ipc and role is Role.runner, cpu_procs=self._cpu_procs),
            )
        except OSError as exc:
            raise SandboxUnavailable(f"cannot start {argv[0]}: {exc}") from None
        if role is Role.runner:
            with self._commands_lock:
                self._runner_commands.add(proc)
        if stdin is not None:
            threading.Thread(target=_feed, args=(proc.stdin, stdin), daemon=True).start()
        buf = CappedBuffer(cap or self.limits.output_cap_bytes)
        stdout = proc.stdout
        assert stdout is not None  # opened with stdout=PIPE

        stop_reading = threading.Event()

        def pump() -> None:
            # The descriptor, polled: the exec can stop reading a pipe that something the
            # command started holds open, and closing it never waits on a read in progress.
            fd = stdout.fileno()
            poller = select.poll()
            poller.register(fd, select.POLLIN)
            while not stop_reading.is_set():
                if poller.poll(100):
                    chunk = os.read(fd, 65536)
                    if not chunk:
                        return
                    buf.write(chunk)

        reader = threading.Thread(target=pump, daemon=True)
        reader.start()
        timed_out = False
        try:
            proc.wait(timeout_s)
        except subprocess.TimeoutExpired:
            timed_out = True
        finally:
            with self._commands_lock:  # before it is reaped, so that its pid is never another's
                self._runner_commands.discard(proc)
            self._kill_group(proc.pid)
            proc.wait()
        reader.join(5)
        if reader.is_alive():
            # A process of the command's outlived it, its group and its pid namespace (one
            # still being torn down, or one that never was), and holds its output open.
            _kill_writers(os.fstat(stdout.fileno()).st_ino)
            reader.join(1)
        stop_reading.set()
        reader.join()
        stdout.close()
        if timed_out:
            self.build_tree_lost()
            empty_folder(self._build)
        return ExecResult(None if timed_out else proc.returncode, buf.value(), buf.truncated, timed_out,
                          time.monotonic() - start)

    def end_runner_commands(self) -> None:
        # Each command leads a process group (bubblewrap's, whose process space dies with
        # it); its exec reaps what escaped the group.
        with self._commands_lock:
            for proc in self._runner_commands:
                _kill(proc.pid, group=True)

    def _kill_group(self, pid: int) -> None:
        # Everything the command started shares its session (bwrap tears down its pid
        # namespace when it dies, but asynchronously).
        _kill(pid, group=True)
        self._reap_stragglers()

    def _reap_stragglers(self, wait_s: float = 5.0) -> None:
        """Kill whatever still runs a binary from this session's build tree: children
        that called setsid() escaped the process group, and a dying pid namespace takes a
        moment. Matching on the executable keeps other sessions' processes out of it."""
        deadline = time.monotonic() + wait_s
        while True:
            found = []
            for pid in _other_pids():
                try:
                    exe = os.readlink(f"/proc/{pid}/exe")
                except OSError:
                    continue
                if exe.startswith(self.build_root + "/"):
                    found.append(pid)
            if not found or time.monotonic() > deadline:
                return
            for pid in found:
                _kill(pid)
            time.sleep(0.05)

    def _empty(self) -> None:
        # Every command's process group is killed when it ends; stragglers that escaped it
        # are what is left to end, and what the runner made outside its scratch (capture.py).
        self._reap_stragglers(wait_s=1.0)
        if self.runner_dirty:
            if self.exec(["sh", "-c", leave_nothing(self)], role=Role.runner, timeout_s=30).exit_code != 0:
                raise SandboxUnavailable("what the runner left could not be removed for reuse")
            self.runner_dirty = False
        for path in (self._build, self._scratch):
            empty_folder(path)
            if any(path.iterdir()):
                raise SandboxUnavailable(f"{path} could not be emptied for reuse")

    def _close(self) -> None:
        shutil.rmtree(self._build, ignore_errors=True)
        shutil.rmtree(self._scratch, ignore_errors=True)
        cpu_group.remove(self._cpu_procs)


class LocalSandbox(Sandbox):
    backend = "local"

    def __init__(self, limits: SandboxLimits | None = None, use_bwrap: bool | None = None):
        super().__init__(limits)
        for tool in ("g++", "cmake", "make"):
            if shutil.which(tool) is None:
                raise SandboxUnavailable(f"the local backend needs {tool} on PATH")
        self.bwrap = shutil.which("bwrap") is not None if use_bwrap is None else use_bwrap
        who = "as a builder and a runner of their own per session, " if os.geteuid() == 0 else ""
        who += "in a cpu cgroup of the session's own, " if cpu_group.available() else ""
        if self.bwrap:
            self.isolation = f"local: bubblewrap (no network, read-only root, private /tmp), {who}rlimits"
        else:
            self.isolation = f"local: plain subprocesses {who}with rlimits (no network isolation; install bwrap)"

    def session(self, label: str = "", language: str | None = None) -> LocalSession:
        return LocalSession(self, label, language)
