"""A task whose test file is a written one. Everything else (build files, the harness's
test main, the reference, the faulty controls) stays the task's own, so the language's
build and test steps build and run the written suite exactly as they do the task's."""

from __future__ import annotations

from functools import cached_property

from ..errors import BadInput
from ..hashing import hash_files, sha256_bytes
from ..languages.registry import language_for
from ..task import Task


class WrittenSuiteTask(Task):
    """The task with `written` in place of its one test file."""

    written: bytes

    @property
    def test_file(self) -> str:
        return self.test_files[0]

    @property
    def written_tests(self) -> tuple[str, ...]:
        return (self.test_file,)

    def read(self, rel: str) -> bytes:
        return self.written if rel == self.test_file else super().read(rel)

    @cached_property
    def content_hash(self) -> str:
        # The build tree is configured per content hash (languages/cpp/testrun.configure_steps): a new
        # written suite is a new content, so nothing of another suite's build is trusted.
        # (Task's own hash function called directly: super() would cache its value under
        # this same name.)
        # On the class a cached_property is itself, its getter in .func; mypy reads it as the getter.
        return hash_files({"task": Task.content_hash.func(self).encode(), "written": self.written})  # type: ignore[attr-defined]


def with_written_tests(task: Task, source: bytes) -> WrittenSuiteTask:
    """The task built with `source` as its test file. A task with several test files is
    refused: a written suite replaces one file, and which one would be a guess."""
    if len(task.test_files) != 1:
        raise BadInput(f"{task.path}: a written test suite replaces the task's one test file, "
                       f"but .meta/config.json lists {len(task.test_files)}")
    if isinstance(task, WrittenSuiteTask):
        task = Task.model_validate(task.model_dump(exclude={"written"}))
    return WrittenSuiteTask(**task.model_dump(), written=source)


def test_file(task: Task) -> str:
    """The file a test writer writes: the task's one test file."""
    return with_written_tests(task, b"").test_file


def start_files(task: Task) -> dict[str, bytes]:
    """What a test writer starts from: the task as it ships, with the correct solution in
    place of the stubs and the test file cut to its skeleton."""
    files = {rel: task.read(rel) for rel in task.shipped_files}
    files.update(task.reference_files())
    files[test_file(task)] = skeleton(task)
    return files


def suite_hash(source: bytes) -> str:
    return sha256_bytes(source)


def skeleton(task: Task) -> bytes:
    """What a test-writing trial's test file starts as: the task's own test file cut before
    its first test (Language.test_skeleton). No test, no expected value."""
    return language_for(task).test_skeleton(task, test_file(task))
