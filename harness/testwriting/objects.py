"""Compiled solution units of a task's targets, kept in a sandbox session from one written
suite to the next. Every written suite is new content, so its build tree is configured
afresh and the make rules would compile each target's solution again; but a solution
unit does not depend on the test file, so its object from an earlier suite is the same
object. Put back into the build tree after the sources are staged (and so newer than
them), make takes it as up to date and only links: per target, a link and a run.

The objects live beside the build trees (build space, emptied with the session), keyed by
the task's content and the target's files: the same build rules, the same sources. Which
ones a session holds is noted in its `configured` record, which is forgotten whenever its
build space is (a reset between trials, a restart after a timeout)."""

from __future__ import annotations

import shlex
from typing import Mapping

from ..cpp_files import is_source
from ..hashing import hash_files
from ..sandbox.base import Role, SandboxSession
from ..task import Task
from ..testrun import configure_steps


def object_key(task: Task, files: Mapping[str, bytes]) -> str:
    """The task as written by its authors (build files, flags) and the target's sources."""
    return hash_files({"task": task.content_hash.encode(), **{f"src/{k}": v for k, v in files.items()}})[:24]


class SolutionObjects:
    """The object cache of one task in one session. `built` is the task whose build tree
    is used (the task with a written test file): its tree, CMake's object paths in it."""

    def __init__(self, task: Task, built: Task, session: SandboxSession):
        self.task, self.built, self.session = task, built, session
        tree = f"{session.build_root}/{built.slug}/CMakeFiles/{built.slug}.dir"
        # CMake's Makefile generator names a source's object after the source's path.
        self.objects = [f"{tree}/{rel}.o" for rel in task.solution_files if is_source(rel)]
        self.store = f"{session.build_root}/.testwriting-objects/{task.slug}"

    def _noted(self, key: str) -> str:
        return f"testwriting-objects/{self.task.slug}/{key}"

    def _sh(self, script: str) -> bool:
        result = self.session.exec(["sh", "-c", script], role=Role.builder, timeout_s=60)
        return result.exit_code == 0

    def restore(self, key: str) -> bool:
        """Put the target's objects into a configured build tree (its .d files too, for
        make's dependency records), touched after the staged sources. False when there
        is nothing to put back, or no tree to put it in yet."""
        if self._noted(key) not in self.session.configured or not self.objects:
            return False
        if configure_steps(self.built, self.session):
            return False
        steps = []
        for i, obj in enumerate(self.objects):
            saved = shlex.quote(f"{self.store}/{key}.{i}")
            steps.append(f"cp {saved}.o {shlex.quote(obj)} && cp {saved}.d {shlex.quote(obj + '.d')} "
                         f"&& touch {shlex.quote(obj)}")
        ok = self._sh(" && ".join(steps))
        if not ok:
            self.session.configured.pop(self._noted(key), None)  # compiled again, and kept again
        return ok

    def keep(self, key: str) -> None:
        """Keep the objects the last build made, under the key of the sources it built."""
        if self._noted(key) in self.session.configured or not self.objects:
            return
        store = shlex.quote(self.store)
        steps = [f"mkdir -p {store}"]
        for i, obj in enumerate(self.objects):
            saved = shlex.quote(f"{self.store}/{key}.{i}")
            steps.append(f"cp {shlex.quote(obj)} {saved}.o && cp {shlex.quote(obj + '.d')} {saved}.d")
        if self._sh(" && ".join(steps)):
            self.session.configured[self._noted(key)] = key
