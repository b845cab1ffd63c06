"""One chat completion for output prediction, straight through litellm (no agent), retried
with backoff: any failure of the call is the provider's (a reply, however wrong, is the
model's), and a provider that keeps failing is a ProviderFailure. `predict eval` asks the
model under evaluation, `select --by simulate` its judge."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Callable

from ..errors import ProviderFailure
from ..models import ModelSpec, _litellm


@dataclass
class Reply:
    text: str
    prompt_tokens: int
    completion_tokens: int


Ask = Callable[[list[dict]], Reply]


def asker(spec: ModelSpec, *, retries: int = 4, backoff_s: float = 2.0, timeout_s: float = 120.0,
          temperature: float | None = None, top_p: float | None = None) -> Ask:
    """`temperature` or `top_p` None leaves the server's default."""
    litellm = _litellm()
    sampling = {k: v for k, v in (("temperature", temperature), ("top_p", top_p)) if v is not None}

    def ask(messages: list[dict]) -> Reply:
        wait = backoff_s
        for attempt in range(1, retries + 1):
            try:
                got = litellm.completion(model=spec.litellm_model, messages=messages, api_base=spec.api_base,
                                         api_key=spec.api_key(), timeout=timeout_s, max_retries=0, **sampling)
                break
            except Exception as exc:  # litellm maps every provider fault to its own exception classes
                if attempt == retries:
                    raise ProviderFailure(f"{spec.name}: {type(exc).__name__}: {exc}", attempt) from None
                time.sleep(wait)
                wait *= 2
        usage = getattr(got, "usage", None)
        return Reply(got.choices[0].message.content or "", getattr(usage, "prompt_tokens", 0) or 0,
                     getattr(usage, "completion_tokens", 0) or 0)

    return ask
