"""What a task's tests compare (languages/compared.py), read from the test unit's object
after the build: the operand types of Catch2's decomposed assertions (`ExprLhs<T>`,
`BinaryExpr<L, R>`, `UnaryExpr<T>`, `MatchExpr<T, M>` instantiations, named by `nm -C`).
A solution whose `p.number()` returns a type of its own with an `operator==` that is always
true makes the test unit instantiate Catch2's templates on that type, where the reference's
build instantiates them on `std::string`. An honest solution may return `long` where the
reference returns `int`, or a `std::string_view`; one that returns a class of its own where
the reference returns a standard type is refused too: the tests were written against the
reference's interface.

The reference's operand types come from its own build when the candidate is the reference
(gold, `--reference`), and otherwise from one compile of the test unit against the
reference's files beside it, in the session, once per task content and compile command in
a process (`reference_types`)."""

from __future__ import annotations

import re
import shlex
import threading
from typing import Mapping, Sequence

from ...sandbox.base import Role, SandboxSession
from ...task import Task
from ..compared import ComparedTypes

# Catch2's decomposed assertions, the names in a type, and those that name no type of the
# program's own.
CPP = ComparedTypes(
    assertion=re.compile(r"Catch::(?:BinaryExpr|ExprLhs|UnaryExpr|MatchExpr)<"),
    name=re.compile(r"[A-Za-z_]\w*(?:::[A-Za-z_]\w*)*"),
    builtin=frozenset(
        "const volatile signed unsigned char wchar_t char8_t char16_t char32_t short int long float double bool void "
        "__int128 decltype nullptr_t auto".split()),
    library=("std::", "__gnu_cxx::", "Catch::"),
)
operand_types = CPP.operand_types
unexpected = CPP.unexpected


_REFERENCE: dict[tuple, frozenset[str]] = {}
_LOCK = threading.Lock()


def _key(task: Task, compile_argv: Sequence[str], backend: str) -> tuple:
    return (task.content_hash, tuple(compile_argv), backend)


def reference_types(task: Task, session: SandboxSession, compile_argv: Sequence[str], test_source: str,
                    staged: Mapping[str, bytes], candidate_types: set[str]) -> frozenset[str] | str:
    """The operand types the reference's build compares in the test unit compiled by
    `compile_argv` (the unit's compile command without `-c`/`-o`, reading `test_source`),
    or why they could not be had. `staged` is what this round built: when it is the
    reference, `candidate_types` are the reference's."""
    key = _key(task, compile_argv, session.backend)
    with _LOCK:
        if key in _REFERENCE:
            return _REFERENCE[key]
    reference = task.reference_files()
    if all(staged.get(rel) == data for rel, data in reference.items()):
        found = frozenset(candidate_types)
    else:
        side = f"{task.exercise}.compared"
        session.stage(side, {**{f: task.read(f) for f in task.test_files}, **reference})
        root = f"{session.src_root}/{task.exercise}"
        source = test_source.replace(f"{root}/", f"{session.src_root}/{side}/", 1)
        if source == test_source:
            return f"the test unit {test_source} is not under the task's sources"
        obj = f"{session.build_root}/{side}.o"
        argv = [source if a == test_source else a for a in compile_argv]
        got = session.exec(["sh", "-c", f"{shlex.join([*argv, '-c', '-o', obj])} >/dev/null 2>&1 && "
                                        f"nm -P -C -g --defined-only --no-sort {shlex.quote(obj)}; rm -f {shlex.quote(obj)}"],
                           role=Role.builder, timeout_s=session.limits.build_timeout_s, cap=16 << 20)
        if got.exit_code != 0 or got.truncated:
            return "the test unit did not compile against the reference, so what its tests compare is unknown"
        found = frozenset(operand_types(got.output.decode(errors="replace")))
    with _LOCK:
        _REFERENCE[key] = found
    return found
