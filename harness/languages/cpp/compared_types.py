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
the tests were written against the reference's interface."""

from __future__ import annotations

import re

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
