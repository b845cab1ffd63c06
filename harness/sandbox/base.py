"""The sandbox boundary: where untrusted, model-written C++ is built and run.

A `Sandbox` opens `SandboxSession`s. A session owns a host-side staging folder (the copy of
the workspace the sandbox sees, read-only from inside), a build tree that survives between
rounds of the session (so an unchanged test unit is not recompiled), and a scratch folder
for the test binary. Commands run as one of two roles: the builder may write the build
tree; the runner, which executes candidate code, may write only its scratch."""

from __future__ import annotations

import os
import shutil
import stat
import tempfile
from abc import ABC, abstractmethod
from dataclasses import dataclass
from enum import Enum
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Iterable, Mapping

from pydantic import BaseModel, Field

from ..errors import UnsafeName
from ..file_names import describe, refusal
from ..languages import LAYOUTS

if TYPE_CHECKING:
    from ..languages.cpp.catch_pch import PchFacts


# The language of a session that neither asked for one nor staged any sources.
DEFAULT_LANGUAGE = "cpp"


class SandboxLimits(BaseModel):
    memory_mb: int = Field(2048, gt=0, description="memory limit; swap is set equal, so none")
    # Upstream C++ bank-account starts 1,000 threads at once (256 aborted it under load); a
    # fork bomb meets the limit the sooner the lower it is.
    pids: int = Field(1200, gt=0, description="process and thread limit")
    cpus: float = Field(1.0, gt=0)
    timeout_s: float = Field(60.0, gt=0, description="wall clock for one run of the test binary")
    build_timeout_s: float = Field(180.0, gt=0, description="wall clock for configure plus build")
    output_cap_bytes: int = Field(1 << 20, gt=0, description="captured output beyond this is dropped")
    scratch_mb: int = Field(512, gt=0, description="size of each tmpfs (build tree, scratch)")


class Role(str, Enum):
    builder = "builder"
    runner = "runner"


@dataclass
class ExecResult:
    exit_code: int | None  # None when killed by the harness (timeout)
    output: bytes
    truncated: bool
    timed_out: bool
    seconds: float


class CappedBuffer:
    """Keeps the first `cap` bytes of a stream and counts the rest, so a program that
    prints without end costs memory once, not forever."""

    def __init__(self, cap: int):
        self.cap = cap
        self.parts: list[bytes] = []
        self.size = 0
        self.dropped = 0

    def write(self, data: bytes) -> None:
        room = self.cap - self.size
        if room > 0:
            keep = data[:room]
            self.parts.append(keep)
            self.size += len(keep)
            self.dropped += len(data) - len(keep)
        else:
            self.dropped += len(data)

    def value(self) -> bytes:
        return b"".join(self.parts)

    @property
    def truncated(self) -> bool:
        return self.dropped > 0


class SandboxSession(ABC):
    """One sandbox for a sequence of test runs (the rounds of a trial, or a batch of
    candidates). Paths are as seen from inside the sandbox."""

    src_root: str      # staged sources, read-only inside
    build_root: str    # survives between runs of this session, writable by the builder
    scratch_root: str  # the runner's only writable place, emptied before each run
    runner_spaces: tuple[str, ...]  # every place the runner can write, for it to empty
    test_main: str | None  # precompiled harness test main, or None to build from source
    # Whether the toolchain's Catch2 CMake package provides a precompiled
    # Catch2::Catch2WithMain, the main an upstream exercise's EXERCISM_TEST_SUITE branch links.
    catch2_with_main: bool = False
    # The compiler launcher test builds go through (a test unit may take Catch2
    # precompiled there, harness/languages/cpp/catch_pch.py), or None for none.
    cxx_launcher: str | None = None
    # A build tree holding only CMake's detection of the toolchain's C++ compiler, which a
    # fresh build tree is started from (languages/cpp/assets/image.dockerfile), or None.
    cmake_seed: str | None = None
    # The CMake file that links the harness's verdict channel into a test build
    # (assets/verdict_channel.cmake, harness/languages/cpp/verdict_channel.py), or None
    # where the backend has none: that backend's verdicts are the binary's own report.
    verdict_channel: str | None = None
    # A shell condition, true when no process of the runner is left but the shell that
    # tests it (capture.py): a backend whose every command ends all it started says `true`.
    runner_alone: str = "true"
    # Whether SysV IPC objects the runner makes outlive its command (no IPC namespace of
    # its own per command), so that the runner must remove them (capture.py).
    runner_ipc: bool = False
    # The builder's uid, which owns the staged sources (folders 0700, files 0600) so that
    # the runner cannot read them; None where the harness cannot give files away (not root).
    source_owner: int | None = None
    # Whether a builder's process may outlive its command and be kept from trial to trial
    # (`kept`): false where every command's processes end with it.
    keeps_processes: bool = False

    def __init__(self, sandbox: "Sandbox", language: str | None = None):
        self.sandbox = sandbox
        # The language whose toolchain the session runs (a Docker session's image): the one
        # asked for, else that of the first sources staged.
        self.language = language
        self.limits = sandbox.limits
        self.staging = Path(tempfile.mkdtemp(prefix="harness-stage-"))
        os.chmod(self.staging, 0o755)
        # What has been configured in the build tree, keyed by whoever configured it;
        # forgotten whenever the build tree is lost (a restart after a timeout).
        self.configured: dict[str, str] = {}
        self._staged: set[str] = set()
        # Whether the runner may have left processes or files: false after a run that
        # ended them itself (sandbox/capture.py), so `reset` need not do it again.
        self.runner_dirty = False
        # Builder's processes the harness started to outlive their command and keeps warm
        # from trial to trial (a Python round's pytest, languages/python/warm.py): their pid
        # inside the sandbox, by name. `reset` leaves them, as it leaves no candidate's
        # process; a new container has none; the builder's emptying checks each is alive.
        self.kept: dict[str, int] = {}

    def stage(self, subdir: str, files: Mapping[str, bytes]) -> None:
        """Make `staging/subdir` hold exactly `files`. Unchanged files keep their
        modification time, which is what lets make skip an unchanged test unit. Every name
        goes through the path check first (file_names.py): one it refuses is UnsafeName and
        nothing is written, so no name reaches outside the folder or through a link."""
        found = next((name for name, layout in LAYOUTS.items() if layout.owns(tuple(files))), None)
        if found is not None:
            self.serve(found)
        root = self.staging / subdir
        folders = {parent.as_posix() for rel in files for parent in PurePosixPath(rel).parents}
        for rel in (subdir, *files):
            problem = refusal(rel) or ("a folder of another staged file" if rel in folders else None)
            if problem is not None:
                raise UnsafeName(f"refused to stage {describe(rel, problem)}")
        root.mkdir(parents=True, exist_ok=True)
        self._staged.add(subdir)
        self._own(root, folder=True)
        wanted = set(files)
        present = {path.relative_to(root).as_posix() for path in root.rglob("*") if path.is_file()}
        for path in sorted(root.rglob("*"), reverse=True):
            rel = path.relative_to(root).as_posix()
            if path.is_file() and rel not in wanted:
                path.unlink()
            elif path.is_dir() and not any(w.startswith(rel + "/") for w in wanted):
                shutil.rmtree(path)
        for rel, data in files.items():
            dest = root / rel
            problem = refusal(rel, root=root)  # on disk now: nothing on the way is a link
            if problem is not None:
                raise UnsafeName(f"refused to stage {describe(rel, problem)}")
            if dest.is_file() and dest.read_bytes() == data:
                continue
            dest.parent.mkdir(parents=True, exist_ok=True)
            for parent in PurePosixPath(rel).parents:  # inside root: the name was checked
                self._own(root / parent, folder=True)
            dest.write_bytes(data)
            self._own(dest, folder=False)
        if present and present != wanted:
            # A file created or removed can change what an include (or an import) finds
            # without changing any file an earlier build read, so nothing of that build
            # is up to date: every file is as new as the newest.
            for rel in files:
                os.utime(root / rel)

    def serve(self, language: str) -> None:
        """The session is to run `language`'s work: one that named no language and staged no
        sources of one takes it (work that runs a command before it stages any says so)."""
        if self.language is None:
            self.language = language

    def language_or_default(self) -> str:
        """The session's language, C++ where nothing said one (a session asked only of the
        toolchain's own facts)."""
        return self.language or DEFAULT_LANGUAGE

    def _own(self, path: Path, *, folder: bool) -> None:
        """A staged folder or file as the builder may read it and, where the harness can
        give it to the builder, the runner may not: a written suite that read the
        solution's source beside its own told the reference from every broken copy."""
        if self.source_owner is None:
            os.chmod(path, 0o755 if folder else 0o644)
            return
        os.chown(path, self.source_owner, self.source_owner)
        os.chmod(path, stat.S_IRWXU if folder else stat.S_IRUSR | stat.S_IWUSR)

    def catch_pch_facts(self) -> "PchFacts | None":
        """What the toolchain's image found about Catch2 and its standard headers, or
        None where test units never take Catch2 precompiled."""
        return None

    @property
    def backend(self) -> str:
        """The backend this session belongs to (`docker`, `local`), as results record it."""
        return self.sandbox.backend

    def build_tree_lost(self) -> None:
        self.configured.clear()

    def reset(self) -> None:
        """Make the session as good as new for unrelated work (another trial): nothing an
        earlier candidate built, wrote or started survives, and no earlier task's staged
        sources are visible. Raises SandboxUnavailable when that cannot be made sure; the
        caller then closes the session instead."""
        for subdir in self._staged:
            shutil.rmtree(self.staging / subdir, ignore_errors=True)
        self._staged.clear()
        self.configured.clear()
        self._empty()

    def make_fit(self) -> None:
        """After a run whose runner left processes or files behind (capture.py): make the
        session fit for the next candidate before anything else runs, the build tree lost
        if need be. One candidate's leftovers never reach the next one's build or run."""
        self.reset()
        self.runner_dirty = False

    def end_runner_commands(self) -> None:
        """End every command of the runner's still running, with all it started (a server
        the test run outlived, or whose thread that would end it never runs). A backend
        whose runner commands share one process space leaves it to the clean-up's own
        `kill -9 -1` (capture.leave_nothing)."""

    @abstractmethod
    def _empty(self) -> None:
        """End whatever the runner left running; empty the build tree, the scratch and the
        temporary space, or raise SandboxUnavailable."""

    @abstractmethod
    def exec(self, argv: list[str], *, role: Role, timeout_s: float, cap: int | None = None,
             stdin: bytes | None = None) -> ExecResult:
        """Run a command inside; stdout and stderr together, capped (at the limits'
        output cap unless `cap` says otherwise). `stdin`, when given, is what the command
        reads on its standard input, which is then closed; without it the command reads
        nothing. On timeout the command (and for Docker, the container) is killed and the
        build tree is lost."""

    @abstractmethod
    def _close(self) -> None: ...

    def close(self) -> None:
        try:
            self._close()
        finally:
            shutil.rmtree(self.staging, ignore_errors=True)

    def __enter__(self) -> "SandboxSession":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


class Sandbox(ABC):
    backend: str
    isolation: str  # one line: what actually confines the code

    def __init__(self, limits: SandboxLimits | None = None):
        self.limits = limits or SandboxLimits()

    @abstractmethod
    def session(self, label: str = "", language: str | None = None) -> SandboxSession:
        """A session for `language`'s work (harness/languages: its name), or for the
        language of the first sources it stages."""

    def image_facts(self, languages: Iterable[str] = ()) -> tuple[str | None, str | None]:
        """The container images the sandbox runs for `languages`, as (tags, ids), each
        comma-joined in the languages' order by name; (None, None) for a backend that runs
        none."""
        return None, None
