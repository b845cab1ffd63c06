"""What a task's tests compare, read from the names of a built test binary's symbols: the
operand types of its equality assertions, as the compiler instantiated the framework's
generic code for them (C++'s Catch2 decompositions, Rust's `assert_failed::<L, R>`).

A solution can pass every `assert_eq!(abbreviate(s), "PNG")` without computing anything: it
returns a type of its own whose equality is always true. The tests then compare that type,
where the reference's build compares the library's own (`String`), and nothing of the
candidate's process is needed to see it. A candidate's operand type is accepted when the
reference's build compares the same type, or when every name in it is the language's or its
standard library's; a type of the program's own that the reference never compares decides
the assertion itself, and is a forgery. Each language says how its listing names an
assertion and which names are its library's (cpp/compared_types.py, rust/compared_types.py)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterable


def generic_arguments(text: str, start: int) -> tuple[list[str], int]:
    """The top-level generic arguments from `text[start]` (just after a `<`) to its `>`, and
    where they end; none where the list is cut short. A `->` (a function type's) closes
    nothing."""
    depth, i = 0, start
    args: list[str] = []
    current: list[str] = []
    while i < len(text):
        c = text[i]
        if c in "<([":
            depth += 1
        elif c == ">" and i > start and text[i - 1] == "-":
            pass
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
    return [], len(text)


@dataclass(frozen=True)
class ComparedTypes:
    """How one language's demangled symbol listing names what its tests compare."""

    assertion: re.Pattern[str]  # ends just after the `<` of an instantiation's arguments
    name: re.Pattern[str]       # a name in a type
    builtin: frozenset[str]     # words that name no type of the program's own
    library: tuple[str, ...]    # prefixes of the standard library's names

    def operand_types(self, listing: str) -> set[str]:
        """The operand types of every assertion instantiated in the listing, one per line."""
        found: set[str] = set()
        for line in listing.splitlines():
            for match in self.assertion.finditer(line):
                args, _ = generic_arguments(line, match.end())
                found.update(" ".join(a.split()) for a in args if a)
        return found

    def library_only(self, operand: str) -> bool:
        return all(n in self.builtin or n.startswith(self.library) for n in self.name.findall(operand))

    def unexpected(self, candidate: Iterable[str], reference: Iterable[str]) -> list[str]:
        """The candidate's operand types that the reference's build never compares and that
        name a type of the program's own: each a comparison the solution decides, not the tests."""
        return sorted(t for t in set(candidate) - set(reference) if not self.library_only(t))


def decided_by_the_solution(operand: str, reference: Iterable[str]) -> str:
    """Why a round is forged for comparing `operand`, in the words of every language."""
    return (f"the tests compare a {operand} where the reference's build compares "
            f"{' or '.join(sorted(reference)) or 'nothing'}: a type of the solution's own decides "
            "what the assertion says, not the value the tests ask for")
