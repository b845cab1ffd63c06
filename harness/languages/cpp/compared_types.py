"""What a task's tests compare, read from the test unit's object after the build: the
operand types of Catch2's decomposed assertions (`ExprLhs<T>`, `BinaryExpr<L, R>`,
`UnaryExpr<T>`, `MatchExpr<T, M>` instantiations, named by `nm -C`).

A solution can pass every `REQUIRE(p.number() == "2234567890")` without computing a
number: it returns a type of its own whose `operator==` is always true. Nothing in the
candidate's process is needed to see that: the test unit then instantiates Catch2's
templates on that type, where the reference's build instantiates them on `std::string`.
A candidate's operand type is accepted when the reference's build compares the same type,
or when every name in it is the language's or the standard library's (an honest solution
may return `long` where the reference returns `int`, or a `std::string_view`); a type the
solution defines that the reference never compares is a forgery. Honest solutions that
return a class of their own where the reference returns a standard type are refused too:
the tests were written against the reference's interface.

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

_DECOMPOSED = re.compile(r"Catch::(?:BinaryExpr|ExprLhs|UnaryExpr|MatchExpr)<")
_NAME = re.compile(r"[A-Za-z_]\w*(?:::[A-Za-z_]\w*)*")
# Words of a type that name no type of the program's own.
_BUILTIN = frozenset(
    "const volatile signed unsigned char wchar_t char8_t char16_t char32_t short int long float double bool void "
    "__int128 decltype nullptr_t auto".split())
_LIBRARY = ("std::", "__gnu_cxx::", "Catch::")


def _arguments(text: str, start: int) -> tuple[list[str], int]:
    """The top-level template arguments from `text[start]` (just after a `<`) to its `>`."""
    depth, i = 0, start
    args: list[str] = []
    current: list[str] = []
    while i < len(text):
        c = text[i]
        if c in "<([":
            depth += 1
        elif c in ")]" or (c == ">" and depth > 0):
            depth -= 1
        elif c == ">":
            args.append("".join(current).strip())
            return args, i + 1
        elif c == "," and depth == 0:
            args.append("".join(current).strip())
            current = []
            i += 1
            continue
        current.append(c)
        i += 1
    return [], len(text)  # cut short: no complete argument list


def operand_types(nm_demangled: str) -> set[str]:
    """The operand types (and matcher types) of every decomposed assertion named in `nm -C` output."""
    found: set[str] = set()
    for line in nm_demangled.splitlines():
        for match in _DECOMPOSED.finditer(line):
            args, _ = _arguments(line, match.end())
            found.update(" ".join(a.split()) for a in args if a)
    return found


def _library_only(operand: str) -> bool:
    for name in _NAME.findall(operand):
        if name not in _BUILTIN and not name.startswith(_LIBRARY):
            return False
    return True


def unexpected(candidate: set[str], reference: set[str]) -> list[str]:
    """The candidate's operand types that the reference's build never compares and that name
    a type of the program's own: each a comparison the solution decides, not the tests."""
    return sorted(t for t in candidate - reference if not _library_only(t))


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
