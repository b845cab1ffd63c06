"""Python mutants: each operator makes the change it names at its own span and nowhere else,
formatting and comments kept; every mutant compiles; docstrings, main guards and
annotations are never touched; the same inputs give the same list, and a cap a seeded
sample of it."""

from __future__ import annotations

import textwrap

import pytest

from harness.languages.mutation import Operator
from harness.languages.python.mutants import generate_mutants, mutants_of_source


def _mutated(source: str, op: Operator | None = None) -> list[str]:
    text = textwrap.dedent(source)
    return [m.mutate_text(text) for m in mutants_of_source(text, "m.py") if op is None or m.operator is op]


def _one_line(source: str, op: Operator) -> set[str]:
    return {t.strip() for t in _mutated(source, op)}


@pytest.mark.parametrize("source, op, expected", [
    ("x = a + b  # sum\n", Operator.arithmetic, {"x = a - b  # sum"}),
    ("x = (a) *b\n", Operator.arithmetic, {"x = (a) /b"}),
    ("x = a // b % c ** d\n", Operator.arithmetic, {"x = a / b % c ** d", "x = a // b // c ** d",
                                                     "x = a // b % c * d"}),
    ("x += 2\n", Operator.arithmetic, {"x -= 2"}),
    ("ok = a < b <= c\n", Operator.relational, {"ok = a <= b <= c", "ok = a < b < c"}),
    ("ok = a == b\n", Operator.relational, {"ok = a != b"}),
    ("ok = a not in b\n", Operator.relational, {"ok = a in b"}),
    ("ok = a is not None\n", Operator.relational, {"ok = a is None"}),
    ("ok = a and b or c\n", Operator.logical, {"ok = a or b or c", "ok = a and b and c"}),
    ("ok = a and (b\n   and c)\n", Operator.logical, {"ok = a or (b\n   and c)", "ok = a and (b\n   or c)"}),
    ("n = 0\n", Operator.boundary, {"n = 1"}),
    ("n = 7\n", Operator.boundary, {"n = 6", "n = 8"}),
    ("n = 7\n", Operator.constant, {"n = 0"}),
    ("n = 0x10\n", Operator.boundary, {"n = 15", "n = 17"}),
    ("f = 2.5\n", Operator.boundary, {"f = 1.5", "f = 3.5"}),
    ("f = 2.5\n", Operator.constant, {"f = 0.0"}),
    ("b = True\n", Operator.constant, {"b = False"}),
    ("s = 'abc'\n", Operator.constant, {'s = ""'}),
    ("s = ''\n", Operator.constant, {'s = "x"'}),
    ("s = rb'ab'\n", Operator.constant, {'s = b""'}),
])
def test_each_operator_makes_its_change_at_its_site(source, op, expected):
    assert _one_line(source, op) == expected


def test_a_condition_is_negated_and_a_not_removed():
    source = """\
    def f(a, b):
        if a > b:
            return 1
        elif not a:
            return 2
        while check(a):
            a = a - 1
        return [x for x in b if x] if a else b
    """
    got = _one_line(source, Operator.negate)
    assert any("if not (a > b):" in t for t in got)
    assert any("elif a:" in t for t in got) and not any("not (not a)" in t for t in got)
    assert any("while not check(a):" in t for t in got)
    assert any("[x for x in b if not x] if a else b" in t for t in got)
    assert any("[x for x in b if x] if not a else b" in t for t in got)


def test_a_statement_goes_with_its_line_or_becomes_pass():
    source = """\
    def f(items):
        total = 0
        for x in items:
            total += x  # add it
        log(total); log(1)
        if total: total = 1
        return total
    """
    deleted = _mutated(source, Operator.delete)
    text = textwrap.dedent(source)
    assert text.replace("    total = 0\n", "") in deleted                     # the whole line
    assert text.replace("total += x  # add it", "pass  # add it") in deleted  # the body would be empty
    assert text.replace("log(total); log(1)", "pass; log(1)") in deleted     # the line holds more
    assert text.replace("if total: total = 1", "if total: pass") in deleted
    assert not any("return total" not in t for t in deleted)  # a value return is the return operator's


def test_a_returned_value_becomes_none():
    assert _one_line("def f():\n    return a, b\n", Operator.returned) == {"def f():\n    return None"}
    assert _mutated("def f():\n    return None\n", Operator.returned) == []


def test_docstrings_main_guards_and_annotations_are_left_alone():
    source = '''\
    """Module doc, 1 + 2."""


    def f(x: int = 3) -> "str":
        """Doc of f."""
        return x


    if __name__ == "__main__":
        print(f(1 + 2))
    '''
    text = textwrap.dedent(source)
    found = mutants_of_source(text, "m.py")
    assert {(m.original, m.replacement) for m in found} == {("3", "2"), ("3", "4"), ("3", "0"), ("x", "None")}


def test_every_mutant_compiles_and_differs_from_the_original():
    source = textwrap.dedent("""\
    import re

    WORD = re.compile(r"[a-z]+")


    class Counter:
        start = 0

        def count(self, text, *, limit=10):
            seen = {}
            for word in WORD.findall(text.lower()):
                if len(seen) >= limit or word in ("", "a"):
                    continue
                seen[word] = seen.get(word, self.start) + 1
            try:
                return max(seen.values()) / len(seen)
            except ValueError:
                raise
            finally:
                pass
    """)
    found = mutants_of_source(text := source, "m.py")
    assert len(found) > 20
    texts = [m.mutate_text(text) for m in found]
    assert len(set(texts)) == len(texts) and text not in texts
    for t in texts:
        compile(t, "m.py", "exec")
    for m in found:  # one change, at its own span
        assert text[m.start:m.end] == m.original and m.original != m.replacement
    # A label names one mutant: `limit=10` becomes 9 and 11 by one operator at one place, and targets,
    # curriculum folders and items are keyed by it.
    assert len({m.label for m in found}) == len(found)


def test_a_file_that_does_not_parse_has_no_mutants():
    assert mutants_of_source("def f(:\n", "m.py") == []


def test_the_list_is_stable_and_a_cap_draws_a_seeded_sample_in_order():
    files = {"b.py": b"def g(a):\n    return a + 1\n", "a.py": b"X = 2 * 3\n", "notes.txt": b"1 + 2"}
    every = generate_mutants(files)
    assert every == generate_mutants(dict(reversed(files.items())))
    assert [m.file for m in every] == sorted(m.file for m in every) and {m.file for m in every} == {"a.py", "b.py"}
    sample = generate_mutants(files, cap=4, seed=7)
    assert len(sample) == 4 and sample == generate_mutants(files, cap=4, seed=7)
    assert [every.index(m) for m in sample] == sorted(every.index(m) for m in sample)
    assert generate_mutants(files, cap=len(every) + 5) == every


def test_offsets_are_characters_where_the_line_holds_other_scripts():
    text = 's = "é" ; n = 1 + 2\n'
    found = {m.replacement: m for m in mutants_of_source(text, "m.py") if m.operator is Operator.arithmetic}
    assert found["-"].mutate_text(text) == 's = "é" ; n = 1 - 2\n'
    assert found["-"].column == text.index("+") + 1
