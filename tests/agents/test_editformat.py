"""Reading answers in Aider's whole edit format as Aider's whole-file coder applies them:
what training scores must be what the agent would have written to disk. The anchor is the
real coder: every tricky answer below goes through Aider 0.86.2's WholeFileCoder in the
Aider environment and through parse_whole, and the edits must be identical."""

from __future__ import annotations

import json
import subprocess

import pytest

from harness.agents.aider.drivers import driver_env
from harness.agents.aider.env import ensure_aider_env
from harness.agents.editformat import choose_fence, parse_whole, render_whole
from tests.conftest import ROOT

CHAT = ["phone_number.h", "phone_number.cpp"]
TWO = {"phone_number.h": "#pragma once\n", "phone_number.cpp": "#include \"phone_number.h\"\n"}
ONE = {"leap.h": "#pragma once\n"}
FENCED = {"notes.h": "// how to call it:\n```\nf();\n```\n"}  # a chat file holding a fence

# (what it tries, the chat files with their contents, the answer)
CASES = [
    ("two files", TWO, "phone_number.h\n```cpp\nint a;\n```\n\nphone_number.cpp\n```cpp\nint b;\n```\n"),
    ("bold, colon, backticks, heading", TWO,
     "**phone_number.h**\n```\nint a;\n```\n`phone_number.cpp`:\n```\nint b;\n```\n### other.txt\n```\nnew\n```\n"),
    ("a made-up folder before a chat file", TWO, "src/deep/phone_number.cpp\n```\nint b;\n```\n"),
    ("the same file twice: the first block stays", TWO,
     "phone_number.h\n```\nv1\n```\nphone_number.h\n```\nv2\n```\n"),
    ("a nameless block then a named one, one chat file", ONE, "```\nnameless\n```\nleap.h\n```\nnamed\n```\n"),
    ("prose names the file in backticks", TWO, "I will edit `phone_number.cpp`.\n\n```\nint c;\n```\n"),
    ("prose names it with punctuation after", TWO, "Changes to `phone_number.h`, as asked:\n\n```\nint c;\n```\n"),
    ("double backticks are not a mention", TWO, "I will edit ``phone_number.cpp``.\n\n```\nint c;\n```\n"),
    ("a mention is forgotten after a block", TWO,
     "See `phone_number.h`.\n\n```\nh\n```\n\n```\nlost\n```\n"),
    ("nameless block, two chat files", TWO, "```\nint e;\n```\n"),
    ("nameless block on the first line, one chat file", ONE, "```\nint d;\n```\n"),
    ("prose only", TWO, "The tests pass already; nothing to change."),
    ("empty answer", TWO, ""),
    ("a name line with no block", TWO, "phone_number.h\nint x;\n"),
    ("four backticks closed by three", TWO, "phone_number.h\n````cpp\nint a;\n```\n"),
    ("three backticks closed by four", TWO, "phone_number.h\n```cpp\nint a;\n````\nafter\n"),
    ("a fence inside the code closes the block", TWO,
     "phone_number.cpp\n```\n// ```example\nint a;\n```\n"),
    ("no newline after the closing fence", TWO, "phone_number.h\n```\nint a;\n```"),
    ("no newline after the last code line, cut off", TWO, "phone_number.h\n```cpp\n#include <string>\nnamespace ph"),
    ("a name line longer than 250 characters", ONE, "x" * 251 + "\n```\nint a;\n```\n"),
    ("prose before the block becomes a file name", TWO, "Here is the updated code:\n```\nint a;\n```\n"),
    ("a new helper header", TWO,
     "helpers.h\n```\nint helper();\n```\nphone_number.cpp\n```\n#include \"helpers.h\"\n```\n"),
    ("a diff-format answer", TWO,
     "phone_number.cpp\n```cpp\n<<<<<<< SEARCH\n#include \"phone_number.h\"\n=======\nint x;\n>>>>>>> REPLACE\n```\n"),
    ("CRLF line endings", TWO, "phone_number.h\r\n```\r\nint a;\r\n```\r\n"),
    ("an indented fence is not a fence", TWO, "phone_number.h\n  ```\n  int a;\n  ```\n"),
    ("chat file holds a fence: three backticks are prose", FENCED, "notes.h\n```\nint a;\n```\n"),
    ("chat file holds a fence: four backticks work", FENCED, "notes.h\n````\nint a;\n````\n"),
    ("nested chat file named exactly", {"src/x.h": "a\n", "other/y.h": "b\n"}, "src/x.h\n```\nnew x\n```\n"),
    ("nested chat file behind a made-up folder", {"src/x.h": "a\n", "other/y.h": "b\n"}, "lib/x.h\n```\nnew x\n```\n"),
    ("two blocks back to back", TWO, "phone_number.h\n```\nh\n```\n```\nstill h?\n```\n"),
    ("an empty block", TWO, "phone_number.h\n```\n```\n"),
    ("non-ASCII content", TWO, "phone_number.h\n```\n// café ‘quoted’ ✓\n```\n"),
    ("a named block, then one the prose names, same file", TWO,
     "phone_number.h\n```\nblock\n```\nAgain `phone_number.h`:\n\n```\nsaw\n```\n"),
]


def _ours(files: dict[str, str], answer: str) -> dict:
    parsed = parse_whole(answer, list(files), choose_fence(files.values()))
    return {"malformed": True} if not parsed.ok else {"edits": [[k, v] for k, v in parsed.files.items()]}


def _aiders(cases) -> list[dict]:
    python = ensure_aider_env()
    script = ROOT / "tests" / "aider_whole_edits.py"
    proc = subprocess.run([str(python), "-I", str(script)], input=json.dumps([{"answer": a, "files": f} for _, f, a in cases]),
                          capture_output=True, text=True, env=driver_env(), timeout=300, cwd="/")
    assert proc.returncode == 0, proc.stderr[-2000:]
    return [{"malformed": True} if "malformed" in r else r for r in json.loads(proc.stdout)]


def test_parse_whole_takes_the_same_edits_as_aiders_whole_file_coder():
    assert len(CASES) >= 25
    theirs = _aiders(CASES)
    differ = [(what, ours, aider) for (what, files, answer), aider in zip(CASES, theirs)
              if (ours := _ours(files, answer)) != aider]
    assert not differ, differ
    # The cases do tell the readings apart: each kind of outcome occurs.
    kinds = {("malformed" if "malformed" in r else "none" if not r["edits"] else "edits") for r in theirs}
    assert kinds == {"malformed", "none", "edits"}


def test_rendered_answers_read_back_to_the_same_files_even_with_fences_inside():
    files = {"phone_number.h": "#pragma once\nint f();\n", "phone_number.cpp": "// ```\n```not a fence\nint f() { return 1; }\n"}
    # Aider picks the fence from the chat files' contents, which here already hold "```".
    parsed = parse_whole(render_whole(files), CHAT, choose_fence(files.values()))
    assert parsed.ok and not parsed.unterminated
    assert parsed.files == files


def test_a_cut_off_last_block_is_kept_and_marked():
    parsed = parse_whole("phone_number.h\n```cpp\n#include <string>\nnamespace ph", CHAT)
    assert parsed.ok and parsed.unterminated
    assert parsed.files == {"phone_number.h": "#include <string>\nnamespace ph"}


def test_an_answer_without_a_listing_writes_nothing_and_a_nameless_block_is_malformed():
    for text in ("", "The answer is 42.", "phone_number.h\nint x;\n"):
        parsed = parse_whole(text, CHAT)
        assert parsed.ok and parsed.files == {}
    nameless = parse_whole("```\nint e;\n```\n", CHAT)
    assert not nameless.ok and "no file name" in nameless.malformed


@pytest.mark.parametrize("contents, fence", [
    (["int a;\n"], ("```", "```")),
    (["```\n"], ("````", "````")),
    (["```\n", "````x\n"], ("<source>", "</source>")),
])
def test_the_fence_is_the_first_no_chat_file_line_starts_with(contents, fence):
    assert choose_fence(contents) == fence
