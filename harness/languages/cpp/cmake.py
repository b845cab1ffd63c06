"""What a C++ task's CMakeLists.txt says about how it builds: which test main it links, and
whether it has Exercism's test-suite branch; and how a copy of the task in a folder of
another name keeps building its own files."""

from __future__ import annotations

import re

from ...errors import BadInput
from ...task import Task

_CATCH2_V3_INCLUDE = re.compile(rb"#\s*include\s*[<\"]catch2/catch_\w+\.hpp[>\"]")
_FILE_BY_FOLDER = 'string(REPLACE "-" "_" file ${exercise})'
_FILE_FIXED = re.compile(r"^set\(file \w+\)", re.M)


def _cmake(task: Task) -> bytes | None:
    path = task.path / "CMakeLists.txt"
    return path.read_bytes() if path.is_file() else None


def links_harness_main(task: Task) -> bool:
    """Our own tasks link the harness test main (and its reporter); upstream exercises link
    Catch2's own main (see `has_exercism_test_suite_branch`)."""
    return b"HARNESS_TEST_MAIN" in (_cmake(task) or b"")


def has_exercism_test_suite_branch(task: Task) -> bool:
    """Upstream exercises have a second way to build, the one Exercism's own test runner
    takes: configured with EXERCISM_TEST_SUITE, their CMakeLists links a system Catch2's
    precompiled `Catch2::Catch2WithMain` and their tests include <catch2/catch.hpp> instead
    of the vendored single header. Both halves must be there, or the test unit would mix two
    copies of Catch2. A test whose branch includes Catch2 v3's headers
    (<catch2/catch_all.hpp>, as Exercism's current C++ runner builds) cannot build against
    the image's Catch2 v2: such a task builds on its own branch, with the Catch2 it vendors."""
    text = _cmake(task) or b""
    if b"EXERCISM_TEST_SUITE" not in text or b"Catch2WithMain" not in text:
        return False
    return bool(task.test_files) and all(_switches_to_catch2_v2(task.read(f)) for f in task.test_files)


def _switches_to_catch2_v2(test_file: bytes) -> bool:
    """The test file has an EXERCISM_TEST_SUITE branch, and it takes Catch2 v2's header."""
    return (b"EXERCISM_TEST_SUITE" in test_file and b"catch2/catch.hpp" in test_file
            and not _CATCH2_V3_INCLUDE.search(test_file))


def relocated_build_files(task: Task) -> dict[str, bytes]:
    """The task's CMakeLists.txt with its file stem fixed to the task's, where Exercism's
    derives it from the folder name, for a copy in a folder of another name. A task whose
    stem is fixed already (a repair task itself) keeps its own."""
    cmake = _cmake(task)
    if cmake is None:
        return {}
    text = cmake.decode()
    if _FILE_BY_FOLDER in text:
        stem = task.exercise.replace("-", "_")  # the C++ identifier form of the slug: file and target names
        return {"CMakeLists.txt": text.replace(_FILE_BY_FOLDER, f"set(file {stem})  # the suite task's file names, "
                                                                 "in any folder").encode()}
    if _FILE_FIXED.search(text):
        return {"CMakeLists.txt": cmake}
    raise BadInput(f"{task.path / 'CMakeLists.txt'}: no line `{_FILE_BY_FOLDER}`; a repair task of it "
                   "could not keep its file names under another folder name")
