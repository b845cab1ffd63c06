"""The output-prediction prompt and its answer format, stated once: what the model is
shown (the code, the call) and how it must write the value, the inverse reading of that
answer, and the expected answer rendered from a probe record.

The answer is one line per observation of the call, in order (a one-expression call has
one observation; a call sequence has one per `=>` line), each line either the value as
JSON or `throws <type>` when the observation threw. A statement that throws ends the call:
its exception is one more line `call ends: throws <type>` after the observations made
before it (a line of its own kind: a statement between two observations could otherwise not
be told from the second observation throwing). A
probe record (harness/languages/cpp/probe/calls.py) is `{"o": [{"v": value} | {"x": type}, ...]}` plus
`"x": type` for a statement that threw, so the answer and the record map one to one.

A call that is one of the task's test cases (languages/cpp/probe/cases.py) is asked as a judge
simulating code on a public test is (simulation_messages): the test file around it and the
case, both without their expected values (languages/cpp/probe/shown.py), each assertion an
observation that never ends the case (SIMULATION_RULE; the probe runs the case so); its
answer has one line per observation the case reaches, as many as the model says it reaches.
Shown as written, a case would hold its own answer wherever the code is right."""

from __future__ import annotations

import json
from typing import Any, Mapping

from ..hashing import sha256_json
from ..languages.cpp.probe import is_case, parse_call
from ..languages.cpp.probe.shown import shown_cases
from ..probe.schema import Forged, bounded_json
from ..training_files import ChatMessage
from . import cruxeval
from .items import PredictItem, PythonAssertion

FORMAT_VERSION = 2  # 2: a test case is shown without its expected values
# A test case that reaches more assertions than this (a loop of a thousand) asks for an
# answer no reader writes line by line: it is no item and no public case.
MAX_OBSERVATIONS = 32
THROWS = "throws "
ENDS = "call ends: throws "

SYSTEM = "You read C++ code and predict exactly what a call of it produces when the program runs."

FORMAT = """Answer with the value only, in a fenced block, one line per observation in order:
- the value as JSON: a number, a "string", true or false, null for a call that returns nothing, [a, b] for a sequence;
  a value of another type as the probe writes it, e.g. {"text": "..."} for a type printed with operator<<;
- `throws <type>` when that observation throws, with the exception's type as C++ spells it (e.g. std::domain_error).
If a statement that is not an observation throws, the call stops there: add one last line `call ends: throws <type>`."""


# What a judge simulating code on a public test is told: the test with its expected values
# taken out (languages/cpp/probe/shown.py), each assertion an observation of its value.
SIMULATION_RULE = """The test runs against the code. Each OBSERVE(x) it reaches is one observation: the value of x.
OBSERVE_THROWS(e) is one observation: whether e throws (null when it does not). Observations never stop the test;
a test with SECTIONs runs once per leaf section, from the top. An exception that escapes the test outside an
observation ends it like a statement that throws."""


def observations(call: str) -> int | None:
    """How many observations the call makes when no statement throws; None for a test
    case, which makes as many as the assertions it reaches."""
    if is_case(call):
        return None
    return sum(1 for step in parse_call(call) if step.observe)


def prompt_hash() -> str:
    """What every prediction prompt says besides its code and call."""
    return sha256_json({"system": SYSTEM, "format": FORMAT, "version": FORMAT_VERSION, "case_rule": SIMULATION_RULE})


def simulation_hash() -> str:
    """What every prompt of a judge simulating code on public tests says besides its code and test."""
    return sha256_json({"prediction": prompt_hash(), "simulation_rule": SIMULATION_RULE})


def render_answer(record: Mapping[str, Any]) -> str:
    """The expected answer for a probe record, in the stated format."""
    lines = [THROWS + str(o["x"]) if "x" in o else json.dumps(o.get("v"), ensure_ascii=False) for o in record.get("o", [])]
    if "x" in record:
        lines.append(ENDS + str(record["x"]))
    return "\n".join(lines)


def _outcome(line: str) -> dict[str, Any] | None:
    if line.startswith(THROWS):
        kind = line[len(THROWS):].strip()
        return {"x": kind} if kind else None
    try:
        value = bounded_json(line.encode())  # a model's text: bounded, so no answer can crash the judge
    except Forged:
        return None
    return {"v": value}


def parse_answer(text: str, call: str) -> dict[str, Any] | None:
    """A model's answer read back as a probe record, or None when it is not in the format."""
    body = text.strip()
    if body.startswith("```"):
        inner = body.split("\n", 1)[1] if "\n" in body else ""
        body = inner.rsplit("```", 1)[0] if "```" in inner else inner
    lines = [line.strip() for line in body.strip().splitlines() if line.strip()]
    ended = None
    if lines and lines[-1].startswith(ENDS):
        ended = lines.pop()[len(ENDS):].strip()
        if not ended:
            return None
    outcomes = [_outcome(line) for line in lines]
    if any(o is None for o in outcomes):
        return None
    want = observations(call)
    if ended is None:
        return {"o": outcomes} if outcomes and want in (None, len(outcomes)) else None
    # A statement ended the call: the observations made before it, at most all of them.
    return {"o": outcomes, "x": ended} if want is None or len(outcomes) <= want else None


def _code_block(files: Mapping[str, str]) -> str:
    return "\n\n".join(f"// file: {name}\n{text.rstrip()}" for name, text in sorted(files.items()))


def prompt_messages(files: Mapping[str, str], call: str, *, prelude: str = "") -> list[ChatMessage]:
    """The prompt: the code, the call (with what the test driver declares before it), the
    format; for a test case, as a simulating judge is asked it, the test file around it
    (`prelude`) and the case, both without their expected values."""
    if is_case(call):
        shown = shown_cases(prelude, [call])
        return simulation_messages(files, shown.cases[0], shown.prelude)
    setup = f"\nBefore the call, the program declares:\n```cpp\n{prelude.strip()}\n```\n" if prelude.strip() else ""
    what = (f"The call (lines starting with `=>` are observations; a single expression is one observation):\n"
            f"```cpp\n{call.strip()}\n```")
    user = f"The code:\n```cpp\n{_code_block(files)}\n```\n{setup}\n{what}\n\nWhat does it produce?\n\n{FORMAT}"
    return [ChatMessage(role="system", content=SYSTEM), ChatMessage(role="user", content=user)]


def simulation_messages(files: Mapping[str, str], shown: str, prelude: str) -> list[ChatMessage]:
    """The prompt of a judge simulating code on a public test: the code, the test file
    around the test and the test, both without expected values, the format. Nothing in it
    says what the test expects."""
    setup = f"\nThe test file around the test:\n```cpp\n{prelude.strip()}\n```\n" if prelude.strip() else ""
    user = (f"The code:\n```cpp\n{_code_block(files)}\n```\n{setup}\nThe test:\n```cpp\n{shown.strip()}\n```\n\n"
            f"{SIMULATION_RULE}\n\nWhat does it produce?\n\n{FORMAT}")
    return [ChatMessage(role="system", content=SYSTEM), ChatMessage(role="user", content=user)]


def item_messages(item: PredictItem) -> list[ChatMessage]:
    """What the model is asked about an item: the prompt of its rule's answer format
    (CruxEval's for an item judged by its assertion)."""
    if isinstance(item.compare, PythonAssertion):
        return cruxeval.item_messages(item)
    return prompt_messages(item.files, item.call, prelude=item.prelude)


def answer_message(answer: str) -> ChatMessage:
    return ChatMessage(role="assistant", content=f"```\n{answer}\n```")


def item_answer(item: PredictItem) -> str:
    """The item's expected answer as its rule's format writes a reply (CruxEval's tags, or a fence)."""
    if isinstance(item.compare, PythonAssertion):
        return f"[ANSWER]\n{item.answer}\n[/ANSWER]"
    return answer_message(item.answer).content
