"""Answers in Aider's *whole* edit format, both ways: `render_whole` writes files as file
listings (a file name line, then the whole content in a fenced block) and `parse_whole`
reads a model's answer back into files the way Aider's whole-file coder applies it, so a
completion scored in training is read exactly as the agent would apply it in evaluation.

The renderer is the gold model's (gold.py); it is re-exported here so the two directions
are found and tested together."""

from __future__ import annotations

import re
from pathlib import PurePosixPath
from typing import Iterable

from pydantic import BaseModel, ConfigDict

from .gold import whole_answer as render_whole

__all__ = ["ParsedAnswer", "parse_whole", "render_whole"]

_FENCE = re.compile(r"^(`{3,})")
# Aider drops a file name whose line is longer than this (its issue #1232).
_MAX_NAME = 250


class ParsedAnswer(BaseModel):
    """The files an answer writes, by name, or why it writes none. `malformed` holds the
    reason when the answer cannot be applied (Aider would report a malformed response or
    apply nothing)."""

    model_config = ConfigDict(frozen=True)

    files: dict[str, str]
    malformed: str | None = None
    unterminated: bool = False  # the last block had no closing fence (a cut-off answer)

    @property
    def ok(self) -> bool:
        return self.malformed is None


def _clean_name(line: str) -> str:
    """The decorations models put around a file name line, removed as Aider removes them:
    bold stars, a trailing colon, backticks, a Markdown heading mark."""
    name = line.strip().strip("*").rstrip(":").strip("`").lstrip("#").strip()
    return "" if len(name) > _MAX_NAME else name


def parse_whole(text: str, chat_files: Iterable[str] = ()) -> ParsedAnswer:
    """Read an answer in the whole format. A block's file name is the line just before its
    opening fence; a name that is not one of `chat_files` but whose base name is becomes
    that file (models like to prepend a made-up folder); a block with no name belongs to
    the file the prose named in backticks, or to the only chat file. A block still open at
    the end is kept, as Aider keeps it. The same file written twice: the last block wins."""
    chat = list(chat_files)
    by_base = {PurePosixPath(f).name: f for f in chat}
    lines = text.splitlines(keepends=True)
    files: dict[str, str] = {}
    name: str | None = None
    fence = ""
    body: list[str] = []
    mentioned: str | None = None  # the last chat file the prose named as `file`
    for i, line in enumerate(lines):
        opening = _FENCE.match(line)
        if name is not None:
            if line.startswith(fence):
                files[name] = "".join(body)
                name, body, mentioned = None, [], None
            else:
                body.append(line)
            continue
        if opening:
            fence = opening.group(1)
            candidate = _clean_name(lines[i - 1]) if i > 0 else ""
            if candidate and candidate not in chat and PurePosixPath(candidate).name in by_base:
                candidate = by_base[PurePosixPath(candidate).name]
            if not candidate:
                if mentioned is not None:
                    candidate = mentioned
                elif len(chat) == 1:
                    candidate = chat[0]
                else:
                    return ParsedAnswer(files={}, malformed=f"no file name before the code block on line {i + 1}")
            name = candidate
            continue
        for word in line.split():
            word = word.rstrip(".:,;!")
            if word.startswith("`") and word.endswith("`") and word.strip("`") in chat:
                mentioned = word.strip("`")
    unterminated = name is not None
    if unterminated:
        files[name] = "".join(body)
    if not files:
        return ParsedAnswer(files={}, malformed="no file listing (a file name line followed by a fenced code block)")
    return ParsedAnswer(files=files, unterminated=unterminated)
