"""A Rust task's test cases, read from its test files (never from a run): each `#[test]`
function of `tests/*.rs` is one case, named as libtest names it (its module path inside the
file, `addition::can_add_two_numbers`); one under `#[cfg(feature = "x")]` (on itself or a
module around it) counts only where the task's Cargo.toml enables `x` by default, as
`cargo test` builds it then. results.json titles a case and shows its code as Exercism's
Rust runner does."""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass

from ...task import Task
from ..language import CaseText
from .screen import Token, code_tokens


@dataclass
class _Scope:
    module: str | None   # a `mod` block's name; None for any other braces
    off: bool            # compiled out by a feature the build does not enable


def _manifest(task: Task) -> dict:
    try:
        return tomllib.loads(task.read("Cargo.toml").decode("utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return {}


def default_features(task: Task) -> set[str]:
    features = _manifest(task).get("features", {})
    default = features.get("default", []) if isinstance(features, dict) else []
    return {f for f in default if isinstance(f, str)} if isinstance(default, list) else set()


def package_name(task: Task) -> str | None:
    package = _manifest(task).get("package", {})
    name = package.get("name") if isinstance(package, dict) else None
    return name if isinstance(name, str) and re.fullmatch(r"[A-Za-z0-9_-]+", name) else None


def _attribute(code: list[Token], at: int) -> tuple[list[str], int]:
    """The words of the attribute starting with `#` at `at`, and where it ends."""
    depth, i = 0, at + 1
    words: list[str] = []
    while i < len(code):
        token = code[i][1]
        if token == "[":
            depth += 1
        elif token == "]":
            depth -= 1
            if depth == 0:
                return words, i + 1
        elif code[i][0] in ("word", "string"):
            words.append(token)
        i += 1
    return words, i


def _feature_off(words: list[str], enabled: set[str]) -> bool:
    return len(words) == 3 and words[:2] == ["cfg", "feature"] and words[2].strip('"') not in enabled


def test_functions(text: str, enabled: set[str]) -> list[tuple[str, int, int]]:
    """(libtest's name, start, end) in characters of each test function a build with the
    `enabled` features compiles."""
    code = code_tokens(text)
    found: list[tuple[str, int, int]] = []
    scopes: list[_Scope] = []
    test = off = False
    start: int | None = None
    i = 0
    while i < len(code):
        kind, token, _line, at = code[i]
        if token == "#":
            words, i = _attribute(code, i)
            start = at if start is None else start
            test = test or words == ["test"]
            off = off or _feature_off(words, enabled)
            continue
        enclosing_off = any(s.off for s in scopes)
        if token == "mod" and i + 2 < len(code) and code[i + 2][1] == "{":
            scopes.append(_Scope(code[i + 1][1], off or enclosing_off))
            i += 3
        elif token == "fn" and test and i + 1 < len(code):
            end = _body_end(code, i)
            if not (off or enclosing_off):
                path = "::".join(s.module for s in scopes if s.module is not None)
                name = f"{path}::{code[i + 1][1]}" if path else code[i + 1][1]
                found.append((name, start if start is not None else at, code[end - 1][3] + 1))
            i = end
        else:
            if token == "{":
                scopes.append(_Scope(None, enclosing_off))
            elif token == "}" and scopes:
                scopes.pop()
            i += 1
            if token not in ("pub", "async", "const"):
                test = off = False
                start = None
            continue
        test = off = False
        start = None
    return found


def _body_end(code: list[Token], at: int) -> int:
    """The index just past the `}` that closes the function starting at `at`."""
    depth, opened = 0, False
    for i in range(at, len(code)):
        if code[i][1] == "{":
            depth, opened = depth + 1, True
        elif code[i][1] == "}":
            depth -= 1
            if opened and depth == 0:
                return i + 1
    return len(code)


def title(name: str) -> str:
    """A test's name as Exercism's Rust runner shows it: words, a leading `test` dropped,
    the first letter capital."""
    words = name.lower().replace("_", " ").split()
    if words and words[0] == "test":
        words = words[1:]
    text = " ".join(words)
    return text[:1].upper() + text[1:]


def test_code(source: str) -> str:
    """A test function's code as Exercism's Rust runner shows it: the body's lines without
    the function's indentation, under a `// #[should_panic ...]` line where it has one."""
    lines = source.split("\n")
    should_panic = next((line.strip() for line in lines if "#[should_panic" in line), None)
    at = next((i for i, line in enumerate(lines) if "fn " in line and "#[" not in line), 0)
    indent = lines[at].split("fn ", 1)[0] + "    "
    body = "\n".join(line.removeprefix(indent) for line in lines[at + 1:-1])
    return f"// {should_panic}\n{body}" if should_panic else body


def case_texts(task: Task) -> list[CaseText]:
    enabled = default_features(task)
    cases: list[CaseText] = []
    for rel in task.test_files:
        text = task.read(rel).decode("utf-8", "replace")
        cases.extend(CaseText(name=name, title=title(name), test_code=test_code(text[start:end]))
                     for name, start, end in test_functions(text, enabled))
    return cases


def declared_test_cases(task: Task) -> int:
    return len(case_texts(task))
