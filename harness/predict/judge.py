"""The judge: a model asked, through an OpenAI-compatible chat endpoint, what a call of a
candidate's code produces, in the output-prediction prompt and answer format
(predict/prompt.py). An answer not in the format is no prediction (None)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

from ..errors import InfraError, InfraKind
from .prompt import parse_answer, prompt_messages


def served_name(model: str) -> str:
    """The name the endpoint serves: a litellm model string without its provider prefix."""
    return model.split("/", 1)[1] if model.startswith("openai/") else model


@dataclass(frozen=True)
class Judge:
    model: str
    api_base: str
    timeout_s: float = 120.0

    def predict(self, files: Mapping[str, str], call: str) -> dict[str, Any] | None:
        import httpx

        body = {"model": served_name(self.model), "temperature": 0.0,
                "messages": [m.model_dump() for m in prompt_messages(files, call)]}
        url = self.api_base.rstrip("/") + "/chat/completions"
        try:
            response = httpx.post(url, json=body, timeout=self.timeout_s)
        except httpx.HTTPError as exc:
            raise InfraError(InfraKind.provider, f"judge {self.model} at {url}: {exc.__class__.__name__}: {exc}") from None
        if response.status_code != 200:
            raise InfraError(InfraKind.provider, f"judge {self.model} at {url} answered {response.status_code}: "
                             f"{response.text.strip()[:300]}")
        text = response.json()["choices"][0]["message"].get("content") or ""
        return parse_answer(text, call)
