"""The Docker backend: one container per session, no network, read-only root, tmpfs for
the build tree and scratch, memory, CPU and process limits, no capabilities, unprivileged
users. Containers carry labels naming the harness process, so any left behind by a killed
harness are reaped the next time a Docker sandbox is made."""

from __future__ import annotations

import io
import os
import socket
import sys
import tarfile
import threading
import time
import uuid
from pathlib import PurePosixPath
from typing import TYPE_CHECKING, Iterable

from ..errors import SandboxUnavailable
from ..languages.cpp.catch_pch import FACTS_DIR, PchFacts
from .base import CappedBuffer, ExecResult, Role, Sandbox, SandboxLimits, SandboxSession
from .capture import leave_nothing
from .engine import docker_client
from .image import build_image, image_repo

if TYPE_CHECKING:
    from docker.models.containers import Container

LABEL = "harness.sandbox"
_BUILDER_UID = 1001
_UIDS = {Role.builder: f"{_BUILDER_UID}:{_BUILDER_UID}", Role.runner: "1002:1002"}
# The builder's commands make folders 0711 and files 0600 (an executable 0711): the runner
# can reach and run the test binary by its name, and read nothing the builder made, no
# object, no CMake file, no listing of a folder.
_BUILDER_UMASK = "umask 066"


def _empty_builder(kept: Iterable[int]) -> str:
    """Shell the builder runs to make a used container as good as new: empty the build tree
    and /tmp, and check that nothing is left, no file and no process of the builder's but
    the shell itself and the processes the session keeps (`SandboxSession.kept`), each
    alive (an orphan stays a zombie: init is `sleep`, which reaps nothing, and a zombie
    holds one of the container's process slots and its pid for good). The runner's
    processes are its own check's (`runner_alone`, after every command of the runner's):
    counting only the builder's lets a runner's command run beside this one (a Python
    round's servers wait there for its pipes). The build tree's own folder is made 0711
    first: the image's /build, whose mode a tmpfs takes over, lets the runner list it, and
    a runner's command may come before this one. (`-O`: owned by this user; every test is a
    builtin, so the shell starts no process.)"""
    spared = "".join(f"|/proc/{pid}" for pid in kept)
    alive = "".join(f"read -r _ _ s _ </proc/{pid}/stat && case $s in [RSD]) ;; *) alone= ;; esac || alone=; "
                    for pid in kept)
    return ("chmod 711 /build && find /build /tmp -mindepth 1 -delete 2>/dev/null; alone=1; "
            f"for p in /proc/[0-9]*; do case $p in /proc/$${spared}) ;; *) ! [ -O \"$p\" ] || alone= ;; esac; done; "
            f"{alive}[ -z \"$(find /build /tmp -mindepth 1 -print -quit)\" ] && [ -n \"$alone\" ]")


_UNFIT = "@@harness: container unfit for reuse@@"


def compile_cache(image: str) -> dict[str, dict[str, str]]:
    """The C++ image's compile cache (languages/cpp/assets/harness-cxx), with
    HARNESS_COMPILE_CACHE=1: a volume of its own per image, so a new compiler never finds an
    old one's objects, shared by every container of the image, the builder's alone. Off by
    default: a compile it has not seen costs a quarter more (docs/harness-test.md), and a
    model's answers are mostly ones it has not seen."""
    if not image.startswith(image_repo("cpp") + ":") or os.environ.get("HARNESS_COMPILE_CACHE", "0") != "1":
        return {}
    return {image.replace(":", "-") + "-objects": {"bind": "/ccache", "mode": "rw"}}


def reap_orphans(client) -> int:
    """Remove sandbox containers whose harness process on this host is gone."""
    removed = 0
    host = socket.gethostname()
    try:
        # Other harness processes remove their containers while we look: ignore those.
        found = client.containers.list(all=True, filters={"label": LABEL}, ignore_removed=True)
    except Exception:
        return 0
    for c in found:
        labels = c.labels
        if labels.get("harness.host") != host:
            continue
        try:
            pid = int(labels.get("harness.pid", "0"))
            os.kill(pid, 0)
            continue  # its owner is alive
        except (ValueError, ProcessLookupError):
            pass
        except PermissionError:
            continue
        try:
            c.remove(force=True)
            removed += 1
        except Exception:
            pass
    return removed


class DockerSession(SandboxSession):
    sandbox: "DockerSandbox"
    src_root = "/src"
    build_root = "/build"
    scratch_root = "/scratch"
    # Every place the runner can write (the root is read-only, /build and /pch the builder's).
    runner_spaces = ("/scratch", "/tmp", "/dev/shm", "/dev/mqueue")
    runner_ipc = True  # the container's IPC namespace outlives every exec
    keeps_processes = True  # an exec's orphans live on with the container

    def __init__(self, sandbox: "DockerSandbox", label: str, language: str | None = None):
        super().__init__(sandbox, language)
        self.label = label
        self.test_main = "/opt/harness/lib/test_main.o"
        self.catch2_with_main = True  # Debian's catch2 ships it; the image's Dockerfile checks
        self.cxx_launcher = "/opt/harness/bin/harness-cxx"
        self.cmake_seed = "/opt/harness/cmake-seed"
        self.verdict_channel = "/opt/harness/verdict_channel.cmake"
        self.container: Container | None = None
        # The staged sources bind-mounted at /src are the builder's, the runner's to read
        # nothing of, where the harness (root) can give them to the builder's uid.
        self.source_owner = _BUILDER_UID if os.geteuid() == 0 else None
        self.session_id = uuid.uuid4().hex[:12]
        # Set by `reset` and by a new container: the builder's emptying is owed, and done by
        # the builder's next command.
        self._builder_dirty = False
        # A Python round's builder and runner commands start together: one container for both.
        self._starting = threading.Lock()
        if language is not None:
            self._open()
        # else the container starts with the first command, in the image of the language
        # of the first sources staged (`SandboxSession.language`)

    def _open(self) -> None:
        try:
            self._start()
        except BaseException:
            # Ctrl-C can land between the daemon creating the container and us holding
            # it; close() finds it by label either way.
            self.close()
            raise

    def _started(self) -> "Container":
        with self._starting:
            if self.container is None:
                self._open()
            assert self.container is not None  # _open started one or raised
            return self.container

    def _start(self) -> None:
        # The docker package takes 0.1 s to import: only where the engine is used, not for every command that names a sandbox.
        import docker

        lim = self.limits
        mb = lim.scratch_mb
        image = self.sandbox.image_for(self.language_or_default())
        try:
            self.container = self.sandbox.client.containers.run(
                image,
                command=["sleep", "infinity"],
                name=f"harness-{self.session_id}-{uuid.uuid4().hex[:6]}",
                detach=True,
                user=_UIDS[Role.runner],
                # As the local backend and a terminal have it: compilers quote names with ‘’.
                environment={"LANG": "C.UTF-8"},
                network_mode="none",
                read_only=True,
                tmpfs={
                    "/build": f"rw,exec,nosuid,nodev,size={mb}m,uid=1001,gid=1001,mode=0711",
                    "/scratch": f"rw,exec,nosuid,nodev,size={mb}m,uid=1002,gid=1002,mode=0700",
                    "/tmp": f"rw,nosuid,nodev,size={mb}m,mode=1777",
                    # Catch2 precompiled for the flags test units use: made by the builder
                    # from Catch2 alone, kept from trial to trial, read-only to the runner.
                    "/pch": f"rw,nosuid,nodev,size={mb}m,uid=1001,gid=1001,mode=0755",
                    # A toolchain's build cache that keys every entry by the content of its
                    # inputs (Go's: languages/go/testrun.py), the builder's alone and kept from
                    # trial to trial: only the toolchain writes an entry, and nothing of a
                    # candidate's runs while it builds, so an entry is what any build of the
                    # same inputs would make.
                    "/cache": f"rw,nosuid,nodev,size={mb}m,uid=1001,gid=1001,mode=0700",
                },
                volumes={str(self.staging): {"bind": "/src", "mode": "ro"}, **compile_cache(image)},
                mem_limit=f"{lim.memory_mb}m",
                memswap_limit=f"{lim.memory_mb}m",
                pids_limit=lim.pids,
                nano_cpus=int(lim.cpus * 1e9),
                cap_drop=["ALL"],
                security_opt=["no-new-privileges"],
                ulimits=[docker.types.Ulimit(name="core", soft=0, hard=0)],
                labels={
                    LABEL: "1",
                    "harness.pid": str(os.getpid()),
                    "harness.host": socket.gethostname(),
                    "harness.session": self.session_id,
                    "harness.label": self.label[:200],
                },
            )
        except docker.errors.ImageNotFound:
            raise SandboxUnavailable(f"sandbox image {image} is missing: run `harness image build`") from None
        except docker.errors.APIError as exc:
            raise SandboxUnavailable(f"cannot start a sandbox container: {exc.explanation or exc}") from None
        self._builder_dirty = True  # a new container's build tree is still the image's to list
        self.kept.clear()

    # Init (`sleep`, the runner's) reaps nothing, so a process the runner left, killed, is
    # still a zombie holding one of the container's process slots: of the runner's, only init
    # and the checking shell may be. The builder's are told apart by their owner, so a
    # builder's command may still run (a Python round's test run reading back its files).
    runner_alone = ("{ alone=1; for p in /proc/[0-9]*; do case $p in /proc/1|/proc/$$) ;; *) ! [ -O \"$p\" ] || alone= "
                    ";; esac; done; [ -n \"$alone\" ]; }")

    def make_fit(self) -> None:
        self._restart()  # the only way to free the slots its zombies hold

    def _restart(self) -> None:
        with self._starting:  # no command of another thread starts one of its own meanwhile
            self._remove()
            self.build_tree_lost()
            self._start()
        self.runner_dirty = False

    def exec(self, argv: list[str], *, role: Role, timeout_s: float, cap: int | None = None,
             stdin: bytes | None = None) -> ExecResult:
        self._started()  # first: a new container owes the builder's emptying before this command
        if self._builder_dirty and role is Role.builder:
            # The emptying owed since `reset` comes first, in the same exec (a reused
            # session's first build costs no exec of its own). A runner's command before it
            # reads nothing of the builder's and leaves it owed: the two may run side by side.
            self._builder_dirty = False
            empty = _empty_builder(self.kept.values())
            guarded = ["sh", "-c", f'{empty} || {{ echo "{_UNFIT}"; exit 125; }}; exec "$@"', "sh", *argv]
            result = self._exec(guarded, role=role, timeout_s=timeout_s, cap=cap, stdin=stdin)
            if not (result.exit_code == 125 and result.output.startswith(_UNFIT.encode())):
                return result
            self._restart()
        return self._exec(argv, role=role, timeout_s=timeout_s, cap=cap, stdin=stdin)

    def _exec(self, argv: list[str], *, role: Role, timeout_s: float, cap: int | None = None,
              stdin: bytes | None = None) -> ExecResult:
        # docker: imported where the engine is used (see _start)
        import docker

        api = self.sandbox.client.api
        start = time.monotonic()
        if role is Role.runner:
            self.runner_dirty = True
        else:
            argv = ["sh", "-c", f'{_BUILDER_UMASK}; exec "$@"', "sh", *argv]
        container = self._started()
        try:
            ex = api.exec_create(container.id, argv, user=_UIDS[role], workdir="/", stdout=True, stderr=True,
                                 stdin=stdin is not None)
            if stdin is None:
                stream = api.exec_start(ex["Id"], stream=True, demux=False)
            else:
                stream = self._feed(api.exec_start(ex["Id"], socket=True), stdin)
        except docker.errors.APIError as exc:
            raise SandboxUnavailable(f"exec in sandbox failed: {exc.explanation or exc}") from None
        buf = CappedBuffer(cap or self.limits.output_cap_bytes)

        def pump() -> None:
            try:
                for chunk in stream:
                    buf.write(chunk)
            except Exception:
                pass  # the container was killed under us; what we have is what there is

        reader = threading.Thread(target=pump, daemon=True)
        reader.start()
        reader.join(timeout_s)
        if reader.is_alive():
            # Killing the container is the only kill that reaches every process the
            # candidate may have forked; the next exec gets a fresh one.
            self._restart()
            reader.join(5)
            return ExecResult(None, buf.value(), buf.truncated, True, time.monotonic() - start)
        code = api.exec_inspect(ex["Id"]).get("ExitCode")
        if code is None:
            raise SandboxUnavailable("sandbox exec ended without an exit code (container died?)")
        return ExecResult(code, buf.value(), buf.truncated, False, time.monotonic() - start)

    def _empty(self) -> None:
        # The runner first, unless its last run did this itself: it ends its processes and
        # removes its files (/tmp is sticky, so only it can); `kill -9 -1` reaches every
        # process of the user but the shell that sends it. The builder's part is left to
        # the next command (`exec`), which the next trial's agent round comes before.
        if self.runner_dirty:
            runner = self._exec(["sh", "-c", leave_nothing(self)], role=Role.runner, timeout_s=30)
            if runner.exit_code != 0:
                raise SandboxUnavailable("the sandbox container could not be emptied for reuse")
            self.runner_dirty = False
        self._builder_dirty = True

    @staticmethod
    def _feed(sock, data: bytes):
        """Send `data` as the command's stdin, close it (so the command sees end of
        input), and yield the command's output. Only the low-level attach socket can carry
        stdin; its output comes in Docker's multiplexed frames."""
        # docker: imported where the engine is used (see _start)
        from docker.utils.socket import frames_iter

        raw = getattr(sock, "_sock", sock)

        def send() -> None:
            # From a thread: a command that stops reading early must not block its output.
            try:
                raw.sendall(data)
                raw.shutdown(socket.SHUT_WR)
            except OSError:
                pass

        threading.Thread(target=send, daemon=True).start()
        try:
            for _, chunk in frames_iter(sock, tty=False):
                yield chunk
        finally:
            sock.close()

    def _remove(self) -> None:
        self.container = None
        try:
            found = self.sandbox.client.containers.list(
                all=True, filters={"label": f"harness.session={self.session_id}"}, ignore_removed=True
            )
        except Exception:
            return  # the engine is gone; the reaper removes it next time
        for c in found:
            try:
                c.remove(force=True)
            except Exception:
                pass

    def catch_pch_facts(self) -> PchFacts | None:
        return self.sandbox.catch_pch_facts(self._started())

    def _close(self) -> None:
        self._remove()


class DockerSandbox(Sandbox):
    backend = "docker"
    isolation = (
        "docker: no network, read-only root, tmpfs build tree and scratch, memory/pids/CPU limits, "
        "no capabilities, unprivileged builder and runner users, the runner's writable places emptied "
        "after every run"
    )

    def __init__(self, limits: SandboxLimits | None = None, image: str | None = None):
        """`image`: the one image every session runs, whatever its language; by default each
        language's own (image.py), built the first time a session of the language starts."""
        super().__init__(limits)
        self.client = docker_client()
        self.image = image
        self._images: dict[str, str] = {}
        self._images_lock = threading.Lock()
        self._facts: PchFacts | None = None
        self._facts_lock = threading.Lock()
        reap_orphans(self.client)

    def image_for(self, language: str) -> str:
        """The image a session of `language` runs: built here unless it exists (once per
        process; a session waits for another's build of the same image)."""
        if self.image is not None:
            return self.image
        with self._images_lock:
            if language not in self._images:
                self._images[language] = build_image(language, log=_build_log).tag
            return self._images[language]

    def session(self, label: str = "", language: str | None = None) -> DockerSession:
        return DockerSession(self, label, language)

    def catch_pch_facts(self, container: Container) -> PchFacts | None:
        """The image's facts for precompiled Catch2, read once from a container of it (an
        archive read, no exec); None when the image has none."""
        with self._facts_lock:
            if self._facts is None:
                files: dict[str, bytes] = {}
                try:
                    stream, _ = container.get_archive(FACTS_DIR)
                    with tarfile.open(fileobj=io.BytesIO(b"".join(stream))) as tar:
                        for m in tar:
                            content = tar.extractfile(m) if m.isfile() else None
                            if content is not None:
                                files[PurePosixPath(m.name).name] = content.read()
                except Exception:  # an image without them (or the engine gone): plain builds
                    files = {}
                self._facts = PchFacts.parse(files)
            return self._facts if self._facts.usable else None

    def image_facts(self, languages: Iterable[str] = ()) -> tuple[str | None, str | None]:
        # docker and requests: imported where the engine is used (see _start)
        import docker
        import requests

        tags = [self.image_for(lang) for lang in sorted(set(languages))] if self.image is None else [self.image]
        if not tags:
            return None, None
        try:
            ids = [self.client.images.get(tag).id for tag in tags]
        except docker.errors.ImageNotFound:
            return ",".join(tags), None  # removed since the sandbox was made: its sessions will say so
        except (docker.errors.APIError, requests.exceptions.ConnectionError) as exc:
            raise SandboxUnavailable(f"the Docker engine did not describe the images {', '.join(tags)} "
                                     f"({exc.__class__.__name__})") from None
        return ",".join(tags), ",".join(ids)


def _build_log(message: str) -> None:
    """A build on first use says what it builds (minutes), on stderr as `harness image build` does."""
    if message.startswith("building ") or not message.startswith("Step "):
        print(message, file=sys.stderr)
