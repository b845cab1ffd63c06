"""What the screens of the languages read by tokens share (Go's, Rust's, Java's screen.py):
a regular-expression tokenizer's loop, and the walk over a candidate's files that bounds
each file's size and encoding before its language's rules read it; and the report of a
solution it refused."""

from __future__ import annotations

import re
from typing import Any, Callable, Mapping

from ..records import TestReport, forged_report

Token = tuple[str, str, int, int]  # kind, text, line, offset in characters

MAX_BYTES = 1 << 20
COMMENTS = ("line", "block")


def readable(tokens: list[Token] | str) -> list[Token] | None:
    """A tokenizer's tokens, or None where it could not read the text (it said why)."""
    return None if isinstance(tokens, str) else tokens


def without_comments(tokens: list[Token] | None) -> list[Token]:
    """The tokens of code; none for a text that could not be read."""
    return [t for t in tokens or () if t[0] not in COMMENTS]


def regex_tokens(pattern: re.Pattern[str], text: str, unreadable: str) -> list[Token] | str:
    """Every token `pattern` (one named group a kind, `space` dropped) reads from `text`, or
    where it could not read on: `line N: <unreadable>`."""
    out: list[Token] = []
    at, line = 0, 1
    while at < len(text):
        m = pattern.match(text, at)
        if m is None:
            return f"line {line}: {unreadable}"
        kind = m.lastgroup or ""
        if kind != "space":
            out.append((kind, m.group(), line, at))
        line += m.group().count("\n")
        at = m.end()
    return out


def files_refused(files: Mapping[str, bytes], suffix: str, not_utf8: str,
                  file_refusals: Callable[[str], list[str]]) -> list[str]:
    """Why the candidate's files of `suffix` may not be built, one reason a finding, in file
    order (`file_refusals` reads one file's text); empty when every file may."""
    found: list[str] = []
    for name in sorted(files):
        if not name.endswith(suffix):
            continue
        data = files[name]
        if len(data) > MAX_BYTES:
            found.append(f"{name}: larger than {MAX_BYTES} bytes")
            continue
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            found.append(f"{name}: not UTF-8 ({not_utf8})")
            continue
        found.extend(f"{name}: {why}" for why in file_refusals(text))
    return found


def block_end(tokens: list[Token], at: int) -> int:
    """The offset just past the `{ ... }` block that opens at or after tokens[at] (a
    function's body), or the text's end where it never closes."""
    depth, opened = 0, False
    for _kind, token, _line, start in tokens[at:]:
        if token == "{":
            depth, opened = depth + 1, True
        elif token == "}":
            depth -= 1
            if opened and depth == 0:
                return start + 1
    return tokens[-1][3] + len(tokens[-1][1])


def refused_report(refused: list[str], transcript: bool, common: dict[str, Any]) -> TestReport:
    """A solution the screen refused: nothing of it is built or run, and what the model is
    shown is what it reached for (records.forged_report)."""
    return forged_report([f"screen: {why}" for why in refused], transcript=transcript, **common)
