"""The judge: a model asked what a call of a candidate's code produces, in the
output-prediction prompt and answer format (predict/prompt.py), through the same call as
`predict eval` (ask.py: litellm, retries with backoff). An answer not in the format is no
prediction (None)."""

from __future__ import annotations

from functools import cached_property
from typing import Any, Mapping

from ..models import parse_model
from .ask import Ask, asker
from .prompt import parse_answer, prompt_messages


class Judge:
    def __init__(self, model: str, api_base: str):
        self.model, self.api_base = model, api_base

    @cached_property
    def ask(self) -> Ask:
        return asker(parse_model(self.model, self.api_base), temperature=0.0)

    def predict(self, files: Mapping[str, str], call: str) -> dict[str, Any] | None:
        reply = self.ask([m.model_dump() for m in prompt_messages(files, call)])
        return parse_answer(reply.text, call)
