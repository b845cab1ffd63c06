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
Shown as written, a case would hold its own answer wherever the code is right.

The language's terms (`languages.language.PredictionTerms`) say how the prompt speaks of its
code and how a value is written: JSON for C++, a Python literal for Python (with `raises
<type>` for an exception), named in the item's comparison rule (`Comparison.answer`) so that
a reader of an answer needs only the call, the record and the rule. A program's standard
output (predict/problems.py) is answered as the text it prints (`parse_output`), compared
token by token."""

from __future__ import annotations

from typing import Any, Iterable, Mapping

from ..hashing import sha256_json
from ..languages import no_language
from ..languages.cpp.probe.prediction import FORMAT, SYSTEM
from ..languages.cpp.probe import is_case, parse_call
from ..languages.cpp.probe.shown import shown_cases
from ..languages.language import PredictionTerms
from ..languages.registry import language_of_files, languages
from ..probe.compare import AnswerForm, Comparison
from ..probe.schema import MAX_STRING
from ..training_files import ChatMessage
from . import cruxeval
from .items import PredictItem, PythonAssertion

FORMAT_VERSION = 2  # 2: a test case is shown without its expected values
# A test case that reaches more assertions than this (a loop of a thousand) asks for an
# answer no reader writes line by line: it is no item and no public case.
MAX_OBSERVATIONS = 32
ENDS = "call ends: "

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


def terms_hash(items: Iterable[PredictItem]) -> str:
    """What the items' prompts say in terms other than C++'s (Python's values, a program's
    standard output) besides their code and call; empty when none is, so a set of C++ items
    hashes as it always did."""
    said: dict[str, list[str]] = {}
    for item in items:
        if item.stdin:
            said["stdin"] = [STDIN_SYSTEM, STDIN_FORMAT]
        elif isinstance(item.compare, Comparison) and item.compare.answer != "json":
            terms = terms_for(item.compare.answer)
            said[terms.answer] = [terms.system, terms.format, terms.throws]
    return sha256_json(said) if said else ""


def simulation_hash(form: AnswerForm = "json") -> str:
    """What every prompt of a judge simulating code on public tests says besides its code and
    test, in the terms of the language whose answers are of `form` (C++'s hash as it always was)."""
    said: dict[str, Any] = {"prediction": prompt_hash(), "simulation_rule": SIMULATION_RULE}
    if form != "json":
        terms = terms_for(form)
        said["terms"] = [terms.system, terms.format, terms.throws]
    return sha256_json(said)


def terms_for(form: AnswerForm) -> PredictionTerms:
    """The terms of the language whose answers write values in `form`."""
    return next(t for t in (lang.prediction_terms() for lang in languages()) if t.answer == form)


def terms_of(files: Mapping[str, str]) -> PredictionTerms:
    """The terms of the language the code is in."""
    language = language_of_files(files, "the item's code")
    if language is None:  # an item's code is always of a language it was built from
        raise no_language(tuple(files), "the item's code")
    return language.prediction_terms()


def render_answer(record: Mapping[str, Any], form: AnswerForm = "json") -> str:
    """The expected answer for a probe record, in the stated format; ValueError for a value
    the form writes no text for."""
    terms = terms_for(form)
    lines = []
    for o in record.get("o", []):
        text = terms.throws + str(o["x"]) if "x" in o else terms.render(o.get("v"))
        if text is None:
            raise ValueError(f"{o.get('v')!r} has no text in answers of the form {form}")
        lines.append(text)
    if "x" in record:
        lines.append(ENDS + terms.throws + str(record["x"]))
    return "\n".join(lines)


def has_text(record: Mapping[str, Any], form: AnswerForm) -> bool:
    """Whether an answer of the form can write the record (render_answer gives it text)."""
    try:
        render_answer(record, form)
    except ValueError:
        return False
    return True


def _outcome(line: str, terms: PredictionTerms) -> dict[str, Any] | None:
    if line.startswith(terms.throws):
        kind = line[len(terms.throws):].strip()
        return {"x": kind} if kind else None
    try:
        return {"v": terms.read(line)}  # a model's text: bounded, so no answer can crash the judge
    except ValueError:
        return None


def _fenced(text: str) -> str:
    """What a fenced block holds (the text itself when it has no fence)."""
    body = text.strip()
    if body.startswith("```"):
        inner = body.split("\n", 1)[1] if "\n" in body else ""
        body = inner.rsplit("```", 1)[0] if "```" in inner else inner
    return body


def parse_output(text: str) -> dict[str, Any] | None:
    """A predicted standard output as a probe record (one observation, the text)."""
    body = _fenced(text)
    return {"o": [{"v": body}]} if len(body) <= MAX_STRING else None


def parse_answer(text: str, call: str, form: AnswerForm = "json") -> dict[str, Any] | None:
    """A model's answer read back as a probe record, or None when it is not in the format."""
    terms = terms_for(form)
    ends = ENDS + terms.throws
    lines = [line.strip() for line in _fenced(text).strip().splitlines() if line.strip()]
    ended = None
    if lines and lines[-1].startswith(ends):
        ended = lines.pop()[len(ends):].strip()
        if not ended:
            return None
    outcomes = [_outcome(line, terms) for line in lines]
    if any(o is None for o in outcomes):
        return None
    want = observations(call)
    if ended is None:
        return {"o": outcomes} if outcomes and want in (None, len(outcomes)) else None
    # A statement ended the call: the observations made before it, at most all of them.
    return {"o": outcomes, "x": ended} if want is None or len(outcomes) <= want else None


def _code_block(files: Mapping[str, str], comment: str) -> str:
    return "\n\n".join(f"{comment} file: {name}\n{text.rstrip()}" for name, text in sorted(files.items()))


STDIN_SYSTEM = "You read a program and predict exactly what it prints when it runs on a given input."
STDIN_FORMAT = ("Answer with exactly what the program writes to standard output, in a fenced block; whitespace "
                "between tokens does not count, and numbers count as equal within 1e-5.")


def prompt_messages(files: Mapping[str, str], call: str, *, prelude: str = "", stdin: bool = False) -> list[ChatMessage]:
    """The prompt: the code, the call (with what the test driver declares before it), the
    format; for a test case, as a simulating judge is asked it, the test file around it
    (`prelude`) and the case, both without their expected values; with `stdin`, the call is
    the standard input the program (the files) reads, and the answer what it prints."""
    if is_case(call):
        shown = shown_cases(prelude, [call])
        return simulation_messages(files, shown.cases[0], shown.prelude)
    terms = terms_of(files)
    fence = terms.fence
    code = f"```{fence}\n{_code_block(files, terms.comment)}\n```"
    if stdin:
        user = (f"The program:\n{code}\n\nIts standard input:\n```\n{call.rstrip()}\n```\n\nWhat does it print?\n\n"
                f"{STDIN_FORMAT}")
        return [ChatMessage(role="system", content=STDIN_SYSTEM), ChatMessage(role="user", content=user)]
    setup = (f"\nBefore the call, the program declares:\n```{fence}\n{prelude.strip()}\n```\n"
             if prelude.strip() else "")
    what = (f"The call (lines starting with `=>` are observations; a single expression is one observation):\n"
            f"```{fence}\n{call.strip()}\n```")
    user = f"The code:\n{code}\n{setup}\n{what}\n\nWhat does it produce?\n\n{terms.format}"
    return [ChatMessage(role="system", content=terms.system), ChatMessage(role="user", content=user)]


def simulation_messages(files: Mapping[str, str], shown: str, prelude: str) -> list[ChatMessage]:
    """The prompt of a judge simulating code on a public test: the code, the test file
    around the test and the test, both without expected values, the format. Nothing in it
    says what the test expects."""
    setup = f"\nThe test file around the test:\n```cpp\n{prelude.strip()}\n```\n" if prelude.strip() else ""
    user = (f"The code:\n```cpp\n{_code_block(files, '//')}\n```\n{setup}\nThe test:\n```cpp\n{shown.strip()}\n```\n\n"
            f"{SIMULATION_RULE}\n\nWhat does it produce?\n\n{FORMAT}")
    return [ChatMessage(role="system", content=SYSTEM), ChatMessage(role="user", content=user)]


def public_messages(files: Mapping[str, str], call: str, shown: str, prelude: str) -> list[ChatMessage]:
    """The prompt of a judge asked about a public test (predict/public.py) whose probe runs
    `call` and which is shown as `shown` after `prelude`: a test case as a simulating judge
    is asked it, any other call in its language's prediction prompt."""
    if is_case(call):
        return simulation_messages(files, shown, prelude)
    return prompt_messages(files, shown, prelude=prelude)


def item_messages(item: PredictItem) -> list[ChatMessage]:
    """What the model is asked about an item: the prompt of its rule's answer format
    (CruxEval's for an item judged by its assertion)."""
    if isinstance(item.compare, PythonAssertion):
        return cruxeval.item_messages(item)
    return prompt_messages(item.files, item.call, prelude=item.prelude, stdin=item.stdin)


def answer_message(answer: str) -> ChatMessage:
    return ChatMessage(role="assistant", content=f"```\n{answer}\n```")


def item_answer(item: PredictItem) -> str:
    """The item's expected answer as its rule's format writes a reply (CruxEval's tags, or a fence)."""
    if isinstance(item.compare, PythonAssertion):
        return f"[ANSWER]\n{item.answer}\n[/ANSWER]"
    return answer_message(item.answer).content
