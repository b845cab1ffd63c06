"""Answers in Aider's edit formats. The *whole* format both ways: `render_whole` writes
files as file listings (a file name line, then the whole content in a fenced block) and
`parse_whole` reads a model's answer back into files exactly as Aider 0.86.2's whole-file
coder applies it (`WholeFileCoder.get_edits`), so a completion scored in training is read
as the agent would have written it to disk in evaluation. tests/agents/test_editformat.py holds
both to the real coder on answers chosen to tell them apart. `render_diff` writes the
*diff* format's SEARCH/REPLACE blocks (the gold model answers in both)."""

from __future__ import annotations

from pathlib import PurePosixPath
from typing import Iterable, Mapping

from pydantic import BaseModel, ConfigDict

from ..languages import LAYOUTS
from ..file_names import Allowed, describe, refusal


# Aider's fences in the order it tries them; it uses the first that no line of the chat
# files starts with, so the fence depends on what the files already hold.
AIDER_FENCES: tuple[tuple[str, str], ...] = (
    ("```", "```"),
    ("````", "````"),
    *((f"<{tag}>", f"</{tag}>") for tag in ("source", "code", "pre", "codeblock", "sourcecode")),
)
# Aider drops a file name whose line is longer than this (its issue #1232).
_MAX_NAME = 250
# Where a block's file name came from, most reliable first: the line before the fence,
# the last chat file the prose named in backticks, the only chat file.
_SOURCES = ("block", "saw", "chat")


class ParsedAnswer(BaseModel):
    """The files an answer writes, by name, in the order Aider writes them. `malformed`
    holds the reason when Aider would reject the answer as a malformed response (a block it
    cannot give a file name, or a file name the one path check refuses: file_names.py, as
    the Aider driver refuses it); an answer with no file listing at all writes nothing and
    is not malformed, as in Aider."""

    model_config = ConfigDict(frozen=True)

    files: dict[str, str]
    malformed: str | None = None
    unterminated: bool = False  # the last block had no closing fence (a cut-off answer)

    @property
    def ok(self) -> bool:
        return self.malformed is None


def choose_fence(contents: Iterable[str]) -> tuple[str, str]:
    """The fence Aider uses for a chat holding files with these contents."""
    lines = "".join(text + "\n" for text in contents).splitlines()
    for fence in AIDER_FENCES:
        if not any(line.startswith(fence[0]) or line.startswith(fence[1]) for line in lines):
            return fence
    return AIDER_FENCES[0]


def _clean_name(line: str) -> str:
    """The decorations models put around a file name line, removed as Aider removes them:
    bold stars, a trailing colon, backticks, a Markdown heading mark."""
    name = line.strip().strip("*").rstrip(":").strip("`").lstrip("#").strip()
    return "" if len(name) > _MAX_NAME else name


def parse_whole(text: str, chat_files: Iterable[str] = (), fence: tuple[str, str] = AIDER_FENCES[0], *,
                allowed: Allowed = None) -> ParsedAnswer:
    """Read an answer in the whole format. Any line starting with the fence opens a block
    when none is open and closes the open one otherwise. A block's file name is the line
    before it; a name that is not a chat file but whose base name is one becomes that base
    name (models like to prepend a made-up folder); a block without a name belongs to the
    last chat file the prose named as `file`, else to the only chat file, else the answer
    is malformed. A block still open at the end is kept. A file written twice keeps the
    block whose name is the most reliable, and among those the first. A file name the path
    check refuses (outside the workspace, not one `allowed` names) makes the whole answer
    malformed: none of it is written."""
    chat = list(chat_files)
    lines = text.splitlines(keepends=True)
    blocks: list[tuple[str, str, list[str]]] = []
    saw: str | None = None
    name: str | None = None
    source = ""
    body: list[str] = []
    for i, line in enumerate(lines):
        if line.startswith(fence[0]) or line.startswith(fence[1]):
            if name is not None:
                blocks.append((name, source, body))
                saw, name, source, body = None, None, "", []
                continue
            if i > 0:
                source = "block"
                name = _clean_name(lines[i - 1])
                if name and name not in chat and PurePosixPath(name).name in chat:
                    name = PurePosixPath(name).name
            if not name:
                if saw:
                    name, source = saw, "saw"
                elif len(chat) == 1:
                    name, source = chat[0], "chat"
                else:
                    return ParsedAnswer(files={}, malformed=f"no file name before the code block on line {i + 1}")
        elif name is not None:
            body.append(line)
        else:
            for word in line.strip().split():
                word = word.rstrip(".:,;!")
                for chat_file in chat:
                    if word == f"`{chat_file}`":
                        saw = chat_file
    unterminated = bool(name)
    if name:
        blocks.append((name, source, body))
    files: dict[str, str] = {}
    for wanted in _SOURCES:
        for fname, fsource, content in blocks:
            if fsource == wanted and fname not in files:
                files[fname] = "".join(content)
    for fname in files:
        problem = refusal(fname, allowed=allowed)
        if problem is not None:
            return ParsedAnswer(files={}, malformed=f"the answer writes a file it may not: {describe(fname, problem)}",
                                unterminated=unterminated)
    return ParsedAnswer(files=files, unterminated=unterminated)


# --- rendering --------------------------------------------------------------------------


def _fence(contents: Mapping[str, str]) -> tuple[str, str]:
    """Backticks as Aider picks them: longer than any run that starts a line in the files."""
    ticks = 3
    for text in contents.values():
        for line in text.splitlines():
            if line.startswith("`" * ticks):
                ticks = len(line) - len(line.lstrip("`")) + 1
    return "`" * ticks, "`" * ticks


def _lang(name: str) -> str:
    """The fence's language tag; Aider ignores it, a reader of the transcript sees it."""
    return next((layout.name for layout in LAYOUTS.values() if layout.owns((name,))), "")


def _body(text: str) -> str:
    return text if text.endswith("\n") else text + "\n"


def render_whole(files: Mapping[str, str]) -> str:
    """Every file as a *file listing*: its name on a line, then the whole content fenced."""
    open_, close = _fence(files)
    parts = [f"{name}\n{open_}{_lang(name)}\n{_body(text)}{close}\n" for name, text in files.items()]
    return "\n".join(parts)


def render_diff(current: Mapping[str, str], new: Mapping[str, str]) -> str:
    """One SEARCH/REPLACE block per file, replacing its whole current content."""
    open_, close = _fence({**current, **new})
    parts = []
    for name, text in new.items():
        old = current.get(name, "")
        parts.append(
            f"{name}\n{open_}{_lang(name)}\n<<<<<<< SEARCH\n{_body(old) if old else ''}=======\n"
            f"{_body(text)}>>>>>>> REPLACE\n{close}\n"
        )
    return "\n".join(parts)
