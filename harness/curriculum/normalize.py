"""Near-duplicate detection for broken code: two attempts that differ only in comments,
layout or the names of their own locals are the same repair exercise.

Each file of the language's own is reduced to the language's normal form
(`Language.normal_form`: C++'s on its tokens, Python's on tokenize's), every other file to
its text with its whitespace squashed; names the task's own files use (its interface:
what the tests call) are kept, so code that calls something else stays different."""

from __future__ import annotations

from typing import Iterable, Mapping

from ..hashing import sha256_json
from ..languages.language import Language


def interface_names(language: Language, files: Iterable[bytes]) -> set[str]:
    """Every name in the given files (a task's stub and tests)."""
    out: set[str] = set()
    for data in files:
        out |= language.names(data.decode("utf-8", errors="replace"))
    return out


def normalized_hash(language: Language, files: Mapping[str, bytes], keep: set[str]) -> str:
    """The hash of the files' normal forms."""
    forms = {}
    for name in sorted(files):
        text = files[name].decode("utf-8", errors="replace")
        forms[name] = language.normal_form(text, keep) if language.layout.owns((name,)) else " ".join(text.split())
    return sha256_json(forms)
