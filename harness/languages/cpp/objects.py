"""Compiled solution units of a task's targets, kept in a sandbox session from one written
suite to the next. Every written suite is new content, so its build tree is configured
afresh and the make rules would compile each target's solution again; but a solution
unit does not depend on the test file, so its object from an earlier suite is the same
object.

Two ways to use a kept object, cheapest first:

- the test unit in the tree was compiled with the headers this target has (a target that
  changes only a .cpp, after one that did the same or after the reference): the objects
  are copied in and CMake's own link line run in the same step, without make (whose
  dependency checks cost more than the link);
- otherwise the objects (with their .d files, for make's dependency records) are put back
  after the sources are staged, newer than them, and make recompiles only the test unit.

The objects live beside the build trees (build space, emptied with the session), keyed by
the task's content and the target's files: the same build rules, the same sources. Which
ones a session holds, and the headers its test unit was last compiled with, are noted in
its `configured` record, which is forgotten whenever its build space is (a reset between
trials, a restart after a timeout).

A session's build space does not outlive it, but the objects are compiled from known code
(the reference and its mutants), never from a model's: in a container image they are the
same in every session, so they are also kept on the host, under the cache folder and the
image's id, and a fresh session (every trial of a run gets an emptied one) is handed them
with its staged sources instead of compiling them again. Only a backend that runs an image
keeps them there: elsewhere the paths compiled into them differ from session to session."""

from __future__ import annotations

import io
import shlex
import tarfile
import weakref
from pathlib import Path
from typing import Mapping

from .files import headers, is_source
from ...fs import atomic_write
from ...hashing import hash_files
from ...paths import cache_dir
from ...records import TestReport
from ...sandbox.base import Role, Sandbox, SandboxSession
from ...task import Task
from .testrun import configure_steps


_image_ids: "weakref.WeakKeyDictionary[Sandbox, str | None]" = weakref.WeakKeyDictionary()
# Staged next to the sources (read-only inside): host-kept objects handed to a session.
_HANDED = ".testwriting-objects"
_ARCHIVE_CAP = 64 * 1024 * 1024  # a solution's objects with their debug information: a few MB at most


def _image_id(sandbox: Sandbox) -> str | None:
    if sandbox not in _image_ids:
        _image_ids[sandbox] = sandbox.image_facts(("cpp",))[1]
    return _image_ids[sandbox]


def object_key(task: Task, files: Mapping[str, bytes]) -> str:
    """The task as written by its authors (build files, flags) and the target's sources."""
    return hash_files({"task": task.content_hash.encode(), **{f"src/{k}": v for k, v in files.items()}})[:24]


class SolutionObjects:
    """The object cache of one task in one session. `built` is the task whose build tree
    is used (the task with a written test file): its tree, CMake's object paths in it."""

    def __init__(self, task: Task, built: Task, session: SandboxSession):
        self.task, self.built, self.session = task, built, session
        self.tree = f"{session.build_root}/{built.exercise}"
        unit_dir = f"{self.tree}/CMakeFiles/{built.exercise}.dir"
        self.link = f"CMakeFiles/{built.exercise}.dir/link.txt"
        # CMake's Makefile generator names a source's object after the source's path.
        self.objects = [f"{unit_dir}/{rel}.o" for rel in task.solution_files if is_source(rel)]
        self.store = f"{session.build_root}/.testwriting-objects/{task.exercise}"
        image = _image_id(session.sandbox)
        self.host = cache_dir() / "testwriting" / "objects" / image.replace(":", "-")[:24] / task.exercise if image else None

    def _host_files(self, key: str) -> dict[str, Path] | None:
        if self.host is None:
            return None
        names = [f"{key}.{i}.{ext}" for i in range(len(self.objects)) for ext in ("o", "d")]
        paths = {n: self.host / n for n in names}
        return paths if all(p.is_file() for p in paths.values()) else None

    def _noted(self, key: str) -> str:
        return f"testwriting-objects/{self.task.exercise}/{key}"

    def _unit_key(self, files: Mapping[str, bytes]) -> str:
        """The written test unit and the solution headers it includes."""
        return hash_files({"written": self.built.content_hash.encode(),
                           **{h: files.get(h, b"") for h in headers(self.task.solution_files)}})

    def _holds(self, key: str) -> bool:
        """The session has the target's objects (handing it the host's copy if it has
        not), and a configured tree to put them in."""
        if not self.objects or configure_steps(self.built, self.session):
            return False
        if self._noted(key) not in self.session.configured:
            kept = self._host_files(key)
            if kept is None:
                return False
            subdir = f"{_HANDED}/{self.task.exercise}/{key}"
            self.session.stage(subdir, {name: path.read_bytes() for name, path in kept.items()})
            self.session.configured[self._noted(key)] = f"{self.session.src_root}/{subdir}"
        return True

    def _copy_in(self, key: str) -> str:
        where = self.session.configured[self._noted(key)]
        steps = []
        for i, obj in enumerate(self.objects):
            saved = shlex.quote(f"{where}/{key}.{i}")
            steps.append(f"cp {saved}.o {shlex.quote(obj)} && cp {saved}.d {shlex.quote(obj + '.d')} "
                         f"&& touch {shlex.quote(obj)}")
        return " && ".join(steps)

    def link_script(self, key: str, files: Mapping[str, bytes]) -> str | None:
        """The build step that copies the target's objects in and links, when the tree's
        test unit fits the target's headers; None when make must build instead."""
        if not self._holds(key) or self.session.configured.get(self._unit_noted()) != self._unit_key(files):
            return None
        return f"{self._copy_in(key)} && cd {shlex.quote(self.tree)} && sh {shlex.quote(self.link)}"

    def _unit_noted(self) -> str:
        return f"testwriting-unit/{self.task.exercise}"

    def restore(self, key: str) -> bool:
        """Put the target's objects into a configured build tree, touched after the staged
        sources. False when there is nothing to put back, or no tree to put it in yet."""
        if not self._holds(key):
            return False
        ok = self.session.exec(["sh", "-c", self._copy_in(key)], role=Role.builder, timeout_s=60).exit_code == 0
        if not ok:
            self.session.configured.pop(self._noted(key), None)  # compiled again, and kept again
        return ok

    def built_with(self, files: Mapping[str, bytes], report: TestReport, linked_only: bool) -> None:
        """Note what the test unit in the tree was compiled with after a build: make
        compiled it for these headers, or left it as it was for a link-only build; a build
        that failed leaves it unknown."""
        if not report.built:
            self.session.configured.pop(self._unit_noted(), None)
        elif not linked_only:
            self.session.configured[self._unit_noted()] = self._unit_key(files)

    def keep(self, key: str) -> None:
        """Keep the objects the last build made, under the key of the sources it built."""
        if self._noted(key) in self.session.configured or not self.objects:
            return
        store = shlex.quote(self.store)
        steps = [f"mkdir -p {store}"]
        for i, obj in enumerate(self.objects):
            saved = shlex.quote(f"{self.store}/{key}.{i}")
            steps.append(f"cp {shlex.quote(obj)} {saved}.o && cp {shlex.quote(obj + '.d')} {saved}.d")
        if self.host is not None and self._host_files(key) is None:
            # One archive of them on the output, for the host's copy.
            steps.append(f"tar -cf - -C {store} " + " ".join(f"{key}.{i}.o {key}.{i}.d" for i in range(len(self.objects))))
        result = self.session.exec(["sh", "-c", " && ".join(steps)], role=Role.builder, timeout_s=60, cap=_ARCHIVE_CAP)
        if result.exit_code != 0:
            return
        self.session.configured[self._noted(key)] = self.store
        if self.host is not None and result.output and not result.truncated:
            self._keep_on_host(self.host, key, result.output)

    def _keep_on_host(self, host: Path, key: str, archive: bytes) -> None:
        try:
            with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
                found = {m.name.split("/")[-1]: f.read() for m in tar.getmembers()
                         if m.isfile() and (f := tar.extractfile(m)) is not None}
        except (tarfile.TarError, AttributeError):
            return  # an unreadable archive: this session compiled them, the next will again
        host.mkdir(parents=True, exist_ok=True)
        for name, data in found.items():
            atomic_write(host / name, data)
