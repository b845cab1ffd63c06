"""What Go, Rust, Java and JavaScript share behind the language seam: code the harness reads
by its tokens alone (names, the normal form, the words compared for copies), and one line
saying what the harness does not do for the language yet: the call probe, output
prediction, written test suites and filling their placeholders."""

from __future__ import annotations

from typing import ClassVar, Sequence

from ..errors import BadInput
from ..sandbox.base import SandboxSession
from ..task import Task
from .language import CallProbe, FilledSuite, ItemCalls, Language, PredictionTerms


class TokenLanguage(Language):
    keywords: ClassVar[frozenset[str]]

    def code(self, text: str) -> list[tuple[str, str]]:
        """(kind, text) of each token of the code, comments left out; the kinds `word`
        (names and keywords) and `other` (punctuation) are the ones read here."""
        raise NotImplementedError

    def _not_yet(self, what: str) -> BadInput:
        return BadInput(f"{what} is not done for {self.layout.title} exercises yet")

    def names(self, text: str) -> set[str]:
        return {token for kind, token in self.code(text) if kind == "word" and token not in self.keywords}

    def normal_form(self, text: str, keep: set[str]) -> str:
        order: dict[str, str] = {}
        out = []
        for kind, token in self.code(text):
            if kind == "word" and token not in self.keywords and token not in keep:
                token = order.setdefault(token, f"n{len(order)}")
            out.append(token)
        return " ".join(out)

    def code_words(self, text: str) -> list[str]:
        return [token if kind == "other" or (kind == "word" and token in self.keywords) else kind
                for kind, token in self.code(text)]

    def function_bodies(self, text: str) -> list[list[str]]:
        return []

    def fill_placeholders(self, task: Task, test_file: str, source: bytes, session: SandboxSession) -> FilledSuite:
        raise self._not_yet("filling a written suite's placeholders")

    def call_probe(self, task: Task, calls: Sequence[str], *, includes: Sequence[str] = (),
                   prelude: str | None = None) -> CallProbe:
        raise self._not_yet("the call probe")

    def test_case_probe(self, task: Task) -> CallProbe | None:
        return None

    def prediction_terms(self) -> PredictionTerms:
        raise self._not_yet("output prediction")

    def item_calls(self, task: Task) -> ItemCalls:
        raise self._not_yet("output prediction")

    def test_skeleton(self, task: Task, test_file: str) -> bytes:
        raise self._not_yet("writing test suites")


