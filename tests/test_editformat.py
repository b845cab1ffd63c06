"""Reading answers in Aider's whole edit format as Aider's whole-file coder applies them:
what training scores must be what the agent would have written to disk."""

from __future__ import annotations

from harness.editformat import parse_whole, render_whole

CHAT = ["phone_number.h", "phone_number.cpp"]


def test_rendered_answers_read_back_to_the_same_files_even_with_fences_inside():
    files = {"phone_number.h": "#pragma once\nint f();\n", "phone_number.cpp": "// ```\n```not a fence\nint f() { return 1; }\n"}
    parsed = parse_whole(render_whole(files), CHAT)
    assert parsed.ok and not parsed.unterminated
    assert parsed.files == files


def test_names_decorated_or_with_a_made_up_folder_resolve_to_chat_files():
    text = ("Here is the fix.\n\n**phone_number.h**\n```cpp\nint a;\n```\n\n"
            "src/deep/phone_number.cpp:\n```\nint b;\n```\n\n### other.txt\n```\nnew file\n```\n")
    assert parse_whole(text, CHAT).files == {"phone_number.h": "int a;\n", "phone_number.cpp": "int b;\n",
                                             "other.txt": "new file\n"}


def test_a_block_without_a_name_takes_the_file_the_prose_named_or_the_only_chat_file():
    assert parse_whole("I will edit `phone_number.cpp`.\n\n```\nint c;\n```\n", CHAT).files == {"phone_number.cpp": "int c;\n"}
    assert parse_whole("```\nint d;\n```\n", ["only.h"]).files == {"only.h": "int d;\n"}
    nameless = parse_whole("```\nint e;\n```\n", CHAT)
    assert not nameless.ok and "no file name" in nameless.malformed


def test_a_cut_off_last_block_is_kept_and_marked():
    parsed = parse_whole("phone_number.h\n```cpp\n#include <string>\nnamespace ph", CHAT)
    assert parsed.ok and parsed.unterminated
    assert parsed.files == {"phone_number.h": "#include <string>\nnamespace ph"}


def test_prose_or_garbage_without_a_listing_is_malformed():
    for text in ("", "The answer is 42.", "phone_number.h\nint x;\n"):
        parsed = parse_whole(text, CHAT)
        assert not parsed.ok and parsed.files == {}


def test_the_same_file_twice_keeps_the_last_block():
    text = "phone_number.h\n```\nv1\n```\nphone_number.h\n```\nv2\n```\n"
    assert parse_whole(text, CHAT).files == {"phone_number.h": "v2\n"}
