"""C++'s side of written test suites (testwriting/): a Catch2 file's skeleton, its code as
the copy check compares it, and a suite's runs that share each target's compiled objects
(objects.py)."""

from __future__ import annotations

import ast
import re
from typing import Mapping

from ...records import TestReport
from ...sandbox.base import Role, SandboxSession
from ...staging import stage_files
from ...task import Task
from ..language import SuiteRuns
from .lexer import CPP_KEYWORDS, Token, code_tokens, tokenize
from .objects import SolutionObjects, object_key
from .testrun import configure_steps, note_configured, run_tests

# The macros that open a Catch2 test case.
_TEST_CASE = frozenset({"TEST_CASE", "TEST_CASE_METHOD", "SCENARIO", "TEMPLATE_TEST_CASE"})
_OPENS = re.compile(r"#\s*if")
_CLOSES = re.compile(r"#\s*endif")


def skeleton(source: str) -> bytes:
    """The test file up to the line of its first test case (the includes, and whatever
    declarations come before the tests), with any conditional left open there closed."""
    tokens = tokenize(source)
    first = next((t.start for t in tokens if t.kind == "ident" and t.text in _TEST_CASE), len(source))
    head = source[:source.rfind("\n", 0, first) + 1]
    directives = [t.text for t in tokenize(head) if t.kind == "pp"]
    still_open = sum(bool(_OPENS.match(d)) for d in directives) - sum(bool(_CLOSES.match(d)) for d in directives)
    return (head.rstrip() + "\n" + "#endif\n" * max(0, still_open)).encode()


# A REQUIRE ends its test case where it fails; the CHECK of the same name goes on. Catch2's
# assertion macros, as a suite writes them.
_GOES_ON = {f"REQUIRE{rest}": f"CHECK{rest}" for rest in (
    "", "_FALSE", "_THROWS", "_THROWS_AS", "_THROWS_WITH", "_THROWS_MATCHES", "_NOTHROW", "_THAT")}


def every_assertion_goes_on(source: str) -> str:
    """The suite with each REQUIRE written as the CHECK of the same name (tokens of code
    only: nothing in a string or a comment changes), so that a failed assertion does not
    end its test case and every one is evaluated."""
    out, at = [], 0
    for t in tokenize(source):
        if t.kind == "ident" and t.text in _GOES_ON:
            out += [source[at:t.start], _GOES_ON[t.text]]
            at = t.end
    return "".join(out) + source[at:]


def _unquote(literal: str) -> str:
    """A string or character literal's text (a raw string's body as it is)."""
    quote = min(i for i in (literal.find('"'), literal.find("'")) if i >= 0)
    prefix, body = literal[:quote], literal[quote:]
    if prefix.endswith("R"):
        return body[body.index("(") + 1:body.rindex(")")]
    try:
        return ast.literal_eval(body) if body.startswith('"') else body[1:-1]
    except (ValueError, SyntaxError):
        return body[1:-1]


def words(tokens: list[Token], depth: int = 0) -> list[str]:
    """The tokens as compared: keywords and punctuation as they are, identifiers and
    numbers by their kind, a run of adjacent literals by the tokens of the text it holds."""
    out: list[str] = []
    quoted: list[str] = []
    for t in [*tokens, None]:
        if t is not None and t.kind in ("string", "char") and depth < 2:
            quoted.append(_unquote(t.text))
            continue
        if quoted:
            out += words(code_tokens("".join(quoted)), depth + 1) or ["STR"]
            quoted = []
        if t is None:
            break
        if t.kind == "ident":
            out.append(t.text if t.text in CPP_KEYWORDS else "ID")
        elif t.kind in ("number", "string", "char"):
            out.append("NUM" if t.kind == "number" else "STR")
        else:
            out.append(t.text)
    return out


def function_bodies(source: str) -> list[list[Token]]:
    """The outermost brace blocks that follow a `)` (a function's or a lambda's body,
    through `const`, `noexcept`, `override` or a trailing return type), in order."""
    tokens = code_tokens(source)
    bodies, i = [], 0
    while i < len(tokens):
        if tokens[i].text == "{" and _after_parameters(tokens, i):
            depth, j = 0, i
            while j < len(tokens):
                depth += {"{": 1, "}": -1}.get(tokens[j].text, 0)
                if depth == 0:
                    break
                j += 1
            bodies.append(tokens[i + 1:j])
            i = j + 1
            continue
        i += 1
    return bodies


def _after_parameters(tokens: list[Token], brace: int) -> bool:
    k = brace - 1
    while k >= 0 and tokens[k].text in ("const", "noexcept", "override", "final", "mutable"):
        k -= 1
    return k >= 0 and tokens[k].text == ")"


class CppSuiteRuns(SuiteRuns):
    """Each target's solution objects compiled once and reused (objects.py): a target costs
    a link and a run, not a full build."""

    def __init__(self, language, task: Task, written: Task, session: SandboxSession):
        super().__init__(language, task, written, session)
        self.objects = SolutionObjects(task, written, session)

    def prepare(self) -> None:
        """Configure the written suite's build tree, as its first build would (configuring
        runs nothing of the suite): a target's objects from an earlier suite can then be put
        back into it, whether or not the reference builds first."""
        steps = configure_steps(self.written, self.session)
        if steps:
            self.session.stage(self.written.exercise, stage_files(self.written, self.task.reference_files())[0])
            got = self.session.exec(["sh", "-c", " && ".join(steps)], role=Role.builder,
                                    timeout_s=self.session.limits.build_timeout_s)
            note_configured(self.written, self.session, got.exit_code == 0)

    def run(self, files: Mapping[str, bytes], *, reference: bool) -> tuple[TestReport, bool]:
        if reference:
            report = run_tests(self.written, files, self.session)
            self.objects.built_with(files, report, linked_only=False)
            return report, False
        key = object_key(self.task, files)
        link = self.objects.link_script(key, files)
        reused: list[bool] = [link is not None]
        if link is not None:
            report = run_tests(self.written, files, self.session, build_script=link)
        else:
            report = run_tests(self.written, files, self.session,
                               after_stage=lambda: reused.append(self.objects.restore(key)))
        self.objects.built_with(files, report, linked_only=link is not None)
        if report.built:
            self.objects.keep(key)
        return report, any(reused)
