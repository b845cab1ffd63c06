"""What a Rust task's tests compare (languages/compared.py): the operand types of every
`assert_eq!` and `assert_ne!` of the test targets, which instantiate
`core::panicking::assert_failed::<L, R>` on them. Cargo builds with Rust's v0 symbol names
(the image's cargo configuration), whose demangled form spells a generic function's
arguments; the legacy names keep them only in a hash. A solution that returns a type of its
own with a `PartialEq<&str>` that is always true passes every `assert_eq!(abbreviate(s),
"PNG")` and is forged here, as the reference's build compares `alloc::string::String`.
Symbol names are the compiler's: the screen refuses `no_mangle` and `export_name`.

The reference's operand types come from its own build when the candidate is the reference,
and otherwise from one build of the tests against the reference's files beside the
candidate's, once per task content in a process, and only for a candidate that compares a
type of its own (testrun.py). What the stub's build compares is accepted too: the stub is
the interface a model is shown, and upstream's sometimes declares a type the reference does
without (nucleotide-codons' `Error`, where its reference returns `&str`)."""

from __future__ import annotations

import re
import threading
from typing import Callable

from ...task import Task
from ..compared import ComparedTypes

RUST = ComparedTypes(
    assertion=re.compile(r"core::panicking::assert_failed::<"),
    name=re.compile(r"(?<![\w'])[A-Za-z_]\w*(?:::[A-Za-z_]\w*)*"),
    builtin=frozenset("str bool char u8 u16 u32 u64 u128 usize i8 i16 i32 i64 i128 isize f32 f64 "
                      "mut const dyn fn unsafe extern for closure".split()),
    library=("core::", "alloc::", "std::"),
)
# What the listing of a build holds at most: an honest test target instantiates a few dozen.
LISTING_CAP = 256 * 1024

_KNOWN: dict[tuple[str, str, str], frozenset[str]] = {}
_LOCK = threading.Lock()


def compared_by(task: Task, which: str, backend: str, build: Callable[[], str | None]) -> frozenset[str] | None:
    """The operand types that `which` of the task's own solutions (its reference, its stub)
    compares, from `build` (that solution's listing, or None where it did not build), once
    per task content in a process; None where it did not build."""
    key = (task.content_hash, which, backend)
    with _LOCK:
        if key in _KNOWN:
            return _KNOWN[key]
    listing = build()
    if listing is None:
        return None
    found = frozenset(RUST.operand_types(listing))
    with _LOCK:
        _KNOWN[key] = found
    return found
