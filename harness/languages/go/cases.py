"""A Go task's test cases, read from its test files (never from a run): each top-level
`func TestXxx(t *testing.T)` is one case, as `go test` reports it; its subtests are parts of
it (their failures are its message)."""

from __future__ import annotations

import re
from typing import Sequence

from ...task import Task
from ..language import CaseText
from ..token_screen import block_end, without_comments
from .screen import tokens_or_none
from .subtests import subtest_code

_TEST_NAME = re.compile(r"Test(?![a-z])\w*")


def _top_funcs(text: str) -> list[tuple[str, int, int]]:
    """(name, start, end) in characters of each top-level function (not a method) of a file."""
    tokens = tokens_or_none(text)
    if tokens is None:
        return []
    found: list[tuple[str, int, int]] = []
    depth = 0
    for i, (kind, token, _line, at) in enumerate(tokens):
        if token in ("{", "(", "["):
            depth += 1
        elif token in ("}", ")", "]"):
            depth -= 1
        elif depth == 0 and token == "func" and i + 1 < len(tokens) and tokens[i + 1][0] == "word":
            found.append((tokens[i + 1][1], at, block_end(tokens, i)))
    return found


def _test_funcs(text: str) -> list[tuple[str, int, int]]:
    """(name, start, end) in characters of each top-level test function of a test file."""
    return [f for f in _top_funcs(text) if _TEST_NAME.fullmatch(f[0]) and f[0] != "TestMain"]


def helper_funcs(task: Task) -> frozenset[str]:
    """The functions the task's test files declare for the solution to call (bottle-song's
    `Title`): every top-level function of theirs but the tests."""
    return frozenset(name for rel in test_files(task) for name, _, _ in _top_funcs(task.read(rel).decode("utf-8", "replace"))
                     if not _TEST_NAME.fullmatch(name))


def test_files(task: Task) -> list[str]:
    """Every test file `go test` compiles: the task's own and any other `_test.go` file of
    the exercise's folder (robot-simulator's steps) whose build constraint holds with no
    tags set (two-bucket's bonus_test.go needs `bonus`), in the order `go test` runs them."""
    names = {*task.test_files, *(f for f in task.shipped_files if "/" not in f and f.endswith("_test.go"))}
    return sorted(f for f in names if _built(task.read(f).decode("utf-8", "replace")))


# What a `//go:build` line may name that holds in the image (linux/amd64, Go 1.21, no cgo).
_TAGS = {"linux", "amd64", "unix", "gc", *(f"go1.{n}" for n in range(1, 22))}
_CONSTRAINT = re.compile(r"^//go:build (.+)$", re.MULTILINE)


def _built(text: str) -> bool:
    m = _CONSTRAINT.search(text[:text.find("\npackage ") + 1] if "\npackage " in text else text)
    if m is None:
        return True
    words = re.findall(r"[\w.]+|&&|\|\||[!()]", m.group(1))
    value, rest = _either(words)
    return value and not rest


def _either(words: list[str]) -> tuple[bool, list[str]]:
    value, words = _both(words)
    while words[:1] == ["||"]:
        other, words = _both(words[1:])
        value = value or other
    return value, words


def _both(words: list[str]) -> tuple[bool, list[str]]:
    value, words = _one(words)
    while words[:1] == ["&&"]:
        other, words = _one(words[1:])
        value = value and other
    return value, words


def _one(words: list[str]) -> tuple[bool, list[str]]:
    if words[:1] == ["!"]:
        value, rest = _one(words[1:])
        return not value, rest
    if words[:1] == ["("]:
        value, rest = _either(words[1:])
        return value, rest[1:]
    return (words[0] in _TAGS, words[1:]) if words else (False, [])


def title(name: str) -> str:
    """A test's name as Exercism's Go runner writes it in results.json."""
    return name.replace("/", "/ ").replace("_", " ")


def _functions(task: Task) -> tuple[dict[str, str], list[str]]:
    """Each test function's source with its doc comment, by name, and every test file's text."""
    functions: dict[str, str] = {}
    texts = []
    for rel in test_files(task):
        text = task.read(rel).decode("utf-8", "replace")
        texts.append(text)
        for name, start, end in _test_funcs(text):
            functions[name] = text[_doc_start(text, start):end]
    return functions, texts


def case_texts(task: Task) -> list[CaseText]:
    """Each test function with its doc comment, as the runner's test_code shows it (Go's
    printer's alignment, `_printed`)."""
    return [CaseText(name=name, title=title(name), test_code=_printed(code)) for name, code in _functions(task)[0].items()]


def cases_for(task: Task, names: Sequence[str]) -> dict[str, CaseText]:
    """The declared case of each name, and for a subtest (`TestX/name`) its own case: its
    code by the runner's convention (subtests.py), else its test function's, as the runner
    falls back."""
    functions, texts = _functions(task)
    out: dict[str, CaseText] = {}
    for name in names:
        top, _, sub = name.partition("/")
        if top not in functions:
            continue
        code = (subtest_code(functions[top], texts, sub) if sub else None) or _printed(functions[top])
        out[name] = CaseText(name=name, title=title(name), test_code=code, part_of=top if sub else None)
    return out


def _doc_start(text: str, start: int) -> int:
    """Where the comment lines right above a function begin (its doc comment)."""
    while start > 0:
        line_start = text.rfind("\n", 0, start - 1) + 1
        if not text[line_start:start].lstrip().startswith("//"):
            break
        start = line_start
    return start


# Cells Go's printer aligns: a key and its value in a composite literal, a struct field's
# name and type, code and the comment after it on its line.
_KEY_VALUE = re.compile(r"(\t*)([A-Za-z_]\w*:)( +)(\S.*)")
_FIELD = re.compile(r"(\t*)([A-Za-z_]\w*)( +)(\S.*)")


def _printed(code: str) -> str:
    """The function as Go's printer writes it with its default settings (what the runner's
    test_code holds): cells that gofmt aligns with spaces aligned with tabs instead, every
    cell of a run of aligned lines padded to the same multiple of 8 columns."""
    lines = code.split("\n")
    cells: list[tuple[str, str, str, tuple[str, int, int]] | None] = []
    comments = _comment_starts(code)
    struct_depth: list[int] = []
    out_single: dict[int, str] = {}
    for n, line in enumerate(lines):
        indent = len(line) - len(line.lstrip("\t"))
        if struct_depth and line.strip().startswith("}") and indent == struct_depth[-1]:
            struct_depth.pop()
        kv = _KEY_VALUE.fullmatch(line)
        field = _FIELD.fullmatch(line) if struct_depth and indent == struct_depth[-1] + 1 else None
        if n in comments:
            at = comments[n]
            head = line[indent:at].rstrip()
            cells.append((line[:indent], head, line[at:], ("comment", indent, at)))
        elif (m := kv or field) and not (kv and line.rstrip()[-1] in "{(["):  # a value over lines ends a run
            cells.append((m.group(1), m.group(2), m.group(4), ("kv" if kv else "field", indent, len(m.group(2) + m.group(3)))))
        else:
            cells.append(None)
            if kv:
                out_single[n] = kv.group(1) + kv.group(2) + " " + kv.group(4)
        if line.rstrip().endswith("struct {"):
            struct_depth.append(indent)
    out = [out_single.get(n, line) for n, line in enumerate(lines)]
    n = 0
    while n < len(lines):
        cell = cells[n]
        if cell is None:
            n += 1
            continue
        group = n
        while group + 1 < len(lines) and (nxt := cells[group + 1]) is not None and nxt[3] == cell[3]:
            group += 1
        stop = -(-(max(len(c[1]) for c in cells[n:group + 1] if c) + 1) // 8) * 8
        for k in range(n, group + 1):
            indent_text, head, rest, _ = cells[k] or ("", "", "", ("", 0, 0))
            out[k] = indent_text + head + "\t" * (stop // 8 - len(head) // 8) + rest
        n = group + 1
    return "\n".join(out)


def _comment_starts(code: str) -> dict[int, int]:
    """Line number -> column of a `//` comment that follows code on that line."""
    found: dict[int, int] = {}
    tokens = tokens_or_none(code) or []
    for (kind, _, line, offset), before in zip(tokens[1:], tokens):
        if kind == "line" and before[2] == line and before[0] not in ("line", "block"):
            found[line - 1] = offset - (code.rfind("\n", 0, offset) + 1)
    return found


def declared_test_cases(task: Task) -> int:
    return len(case_texts(task))


def package_name(text: str) -> str | None:
    """The package clause's name of a Go file, or None where it has none."""
    tokens = tokens_or_none(text)
    if not tokens:
        return None
    code = without_comments(tokens)
    if len(code) >= 2 and code[0][1] == "package" and code[1][0] == "word":
        return code[1][1]
    return None
