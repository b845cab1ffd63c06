"""A task whose test file is a written one. Everything else (build files, the harness's
test main, the reference, the faulty controls) stays the task's own, so the existing build
and test steps (testrun.py) build the written suite exactly as they build the task's."""

from __future__ import annotations

from functools import cached_property

from ..errors import BadInput
from ..hashing import hash_files, sha256_bytes
from ..task import Task


class WrittenSuiteTask(Task):
    """The task with `written` in place of its one test file."""

    written: bytes

    @property
    def test_file(self) -> str:
        return self.test_files[0]

    def read(self, rel: str) -> bytes:
        return self.written if rel == self.test_file else super().read(rel)

    @cached_property
    def content_hash(self) -> str:
        # The build tree is configured per content hash (testrun.configure_steps): a new
        # written suite is a new content, so nothing of another suite's build is trusted.
        # (Task's own hash function called directly: super() would cache its value under
        # this same name.)
        return hash_files({"task": Task.content_hash.func(self).encode(), "written": self.written})


def with_written_tests(task: Task, source: bytes) -> WrittenSuiteTask:
    """The task built with `source` as its test file. A task with several test files is
    refused: a written suite replaces one file, and which one would be a guess."""
    if len(task.test_files) != 1:
        raise BadInput(f"{task.path}: a written test suite replaces the task's one test file, "
                       f"but .meta/config.json lists {len(task.test_files)}")
    if isinstance(task, WrittenSuiteTask):
        task = Task.model_validate(task.model_dump(exclude={"written"}))
    return WrittenSuiteTask(**task.model_dump(), written=source)


def suite_hash(source: bytes) -> str:
    return sha256_bytes(source)
