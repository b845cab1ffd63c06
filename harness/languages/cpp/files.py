"""Which files of a task are C++, and of those which are sources (each compiled on its own,
a translation unit) and which are headers (compiled only where a source includes them).

The probe keys the units it recompiles by them (probe/build.py), the mutants and the
normal forms read only C++ files: all ask here. The source suffixes are those CMake
compiles as C++; a solution file that is not a source is taken for a header, since any
file may be included."""

from __future__ import annotations

from pathlib import PurePosixPath
from typing import Iterable

SOURCE_SUFFIXES = (".cpp", ".cc", ".cxx", ".c++")
HEADER_SUFFIXES = (".h", ".hh", ".hpp", ".hxx", ".ipp")


def _suffix(name: str) -> str:
    return PurePosixPath(name).suffix.lower()


def is_cpp_file(name: str) -> bool:
    return _suffix(name) in SOURCE_SUFFIXES + HEADER_SUFFIXES


def is_source(name: str) -> bool:
    return _suffix(name) in SOURCE_SUFFIXES


def headers(names: Iterable[str]) -> list[str]:
    """The files among `names` that a source may include: every one that is not a source."""
    return [n for n in names if not is_source(n)]
