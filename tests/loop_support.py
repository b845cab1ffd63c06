"""The loop tests' world: a three-task C++ suite small enough for a tiny model, a tiny base
model, and an SFT adapter that answers every task with the same whole-file listing.

The three tasks share one solution file, `solution.h`, so a listing of it is an edit of
any of them. The adapter learns the `square` task's reference: greedy decoding solves
`square` and writes `square`'s code into `cube` and `twice`, which then fail to build.
Those failures are what the loop's curriculum is made from.

A model of 100 K parameters cannot learn to answer a 2,000-token Aider conversation in a
test's time, so the tiny model's chat template shows it only the start of the last user
message (the task's instructions). Everything else on the path is real: Aider sends its
whole conversation, the local server applies the model's own template, and training
applies the same template to the same messages."""

from __future__ import annotations

import json
from pathlib import Path

from harness.contract import load_contract
from harness.agents.editformat import render_whole
from harness.suite import load_suite
from harness.training_files import ChatMessage, SftRow, write_jsonl

from tests.train_support import CPU, harness

SUITE = "toy3"

# slug -> (what to write, the body of the reference, test cases as (argument, expected))
TASKS = {
    "square": ("the square of x", "return x * x;", [(0, 0), (3, 9), (-4, 16), (12, 144)]),
    "cube": ("the cube of x", "return x * x * x;", [(0, 0), (2, 8), (-3, -27), (10, 1000)]),
    "twice": ("twice x", "return 2 * x;", [(0, 0), (4, 8), (-7, -14), (50, 100)]),
}

_CMAKE = """cmake_minimum_required(VERSION 3.14)
get_filename_component(exercise ${CMAKE_CURRENT_SOURCE_DIR} NAME)
# Every task's files are solution.h and solution_test.cpp, whatever its folder is called.
set(file solution)
project(${exercise} CXX)
find_package(Catch2 REQUIRED)
add_executable(${exercise} ${file}_test.cpp ${file}.h)
target_link_libraries(${exercise} PRIVATE Catch2::Catch2)
if(NOT HARNESS_TEST_MAIN AND DEFINED ENV{HARNESS_TEST_MAIN})
    set(HARNESS_TEST_MAIN $ENV{HARNESS_TEST_MAIN})
endif()
if(HARNESS_TEST_MAIN)
    target_sources(${exercise} PRIVATE ${HARNESS_TEST_MAIN})
else()
    file(WRITE ${CMAKE_CURRENT_BINARY_DIR}/catch_main.cpp "#define CATCH_CONFIG_MAIN\\n#include <catch2/catch.hpp>\\n")
    target_sources(${exercise} PRIVATE ${CMAKE_CURRENT_BINARY_DIR}/catch_main.cpp)
endif()
option(EXERCISM_RUN_ALL_TESTS "Run every test case, not only the first" OFF)
if(EXERCISM_RUN_ALL_TESTS)
    target_compile_definitions(${exercise} PRIVATE EXERCISM_RUN_ALL_TESTS)
endif()
set_target_properties(${exercise} PROPERTIES CXX_STANDARD 17 CXX_STANDARD_REQUIRED OFF CXX_EXTENSIONS OFF)
set_source_files_properties(${file}_test.cpp PROPERTIES COMPILE_FLAGS "-Wall -Wextra -Wpedantic -Werror")
add_custom_target(test_${exercise} ALL DEPENDS ${exercise} COMMAND ${exercise})
"""


def header(slug: str, body: str) -> str:
    return f"#pragma once\n\nnamespace toy {{\n\ninline long long {slug}(long long x) {{ {body} }}\n\n}}\n"


def _stub(slug: str) -> str:
    return f"#pragma once\n\nnamespace toy {{\n\ninline long long {slug}(long long) {{ return 0; }}\n\n}}\n"


def _tests(slug: str, cases: list[tuple[int, int]]) -> str:
    out = ['#include <catch2/catch.hpp>\n\n#include "solution.h"\n']
    for i, (arg, want) in enumerate(cases):
        if i == 1:
            out.append("#if defined(EXERCISM_RUN_ALL_TESTS)")
        out.append(f'TEST_CASE("{slug} of {arg}", "[{slug}{i}]") {{\n    REQUIRE(toy::{slug}({arg}) == {want});\n}}\n')
    out.append("#endif\n")
    return "\n".join(out)


def write_toy_suite(root: Path) -> Path:
    """The suite folder `root/toy3`: three real C++ tasks in the Exercism layout."""
    suite = root / SUITE
    for slug, (what, body, cases) in TASKS.items():
        task = suite / slug
        (task / ".meta").mkdir(parents=True)
        (task / ".docs").mkdir()
        (task / ".docs" / "instructions.md").write_text(
            f"# Instructions\n\nIn `solution.h`, make `toy::{slug}(x)` return {what}.\n")
        (task / ".meta" / "config.json").write_text(json.dumps(
            {"files": {"solution": ["solution.h"], "test": ["solution_test.cpp"], "example": [".meta/example.h"]}}))
        (task / ".meta" / "example.h").write_text(header(slug, body))
        (task / "solution.h").write_text(_stub(slug))
        (task / "solution_test.cpp").write_text(_tests(slug, cases))
        (task / "CMakeLists.txt").write_text(_CMAKE)
    (suite / "suite.toml").write_text(
        f'name = "{SUITE}"\nversion = "0.1"\nlanguage = "cpp"\nimage = "harness-cpp"\n'
        f'tasks = [{", ".join(json.dumps(s) for s in TASKS)}]\n')
    return suite


def square_answer() -> str:
    return render_whole({"solution.h": header("square", TASKS["square"][1])})


# The last user message's first characters, as one user turn; an assistant message that
# ends the conversation (a training answer) follows as the model's turn.
SHORT_TEMPLATE = (
    "{% set ns = namespace(last='') %}"
    "{% for m in messages %}{% if m['role'] == 'user' %}{% set ns.last = m['content'] %}{% endif %}{% endfor %}"
    "<|im_start|>user\n{{ ns.last[:PROMPT_CHARS] }}<|im_end|>\n"
    "{% if messages[-1]['role'] == 'assistant' %}<|im_start|>assistant\n{{ messages[-1]['content'] }}<|im_end|>\n{% endif %}"
    "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)
PROMPT_CHARS = 100


def build_short_sighted_model(out: Path) -> Path:
    """The tiny model, with SHORT_TEMPLATE as its chat template."""
    from transformers import AutoTokenizer

    from tests.tinymodel import build_tiny_model

    base = build_tiny_model(out)
    tokenizer = AutoTokenizer.from_pretrained(base)
    tokenizer.chat_template = SHORT_TEMPLATE.replace("PROMPT_CHARS", str(PROMPT_CHARS))
    tokenizer.save_pretrained(base)
    _sharpen(base)
    return base


def _sharpen(base: Path, gain: float = 4.0) -> None:
    """Scale the final norm so that the model can become confident. With tied embeddings
    of the usual 0.02 spread and a unit norm (which LoRA does not train), no logit can rise
    far above the rest: after SFT the right token wins greedy decoding by a margin of
    about 0.1%, so what the adapter answers would depend on the library versions'
    arithmetic rather than on what it was taught."""
    import torch
    from transformers import AutoModelForCausalLM

    model = AutoModelForCausalLM.from_pretrained(base)
    with torch.no_grad():
        model.model.norm.weight.mul_(gain)
    model.save_pretrained(base)


def write_sft_data(suite: Path, path: Path, copies: int = 16) -> Path:
    """Each task's first message under the run's default contract, answered with the
    listing of `square`'s reference."""
    contract = load_contract("original")
    data = [SftRow(task_id=f"{SUITE}-warmup/{task.slug}", source_task=f"{SUITE}/square",
                   messages=[ChatMessage(role="user", content=contract.first_message(task)),
                             ChatMessage(role="assistant", content=square_answer())])
            for task in load_suite(suite).tasks for _ in range(copies)]
    return write_jsonl(path, data)


def sft_square(base: Path, data: Path, out: str, runs: Path):
    return harness("train", "sft", "--data", str(data), "--base", str(base), "--out", out, "--runs-dir", str(runs),
                   "--epochs", "40", "--lr", "1e-2", "--set", "sft.batch_size=16", "--set", "sft.micro_batch_size=16",
                   *CPU)
