"""Model specs: what `--model` names and how the agent reaches it.

Four kinds, told apart by the string alone:
- `gold`: the built-in server answering with each task's reference solution;
- `local/<adapter>`: an adapter served by `harness serve`, resolved to its endpoint;
- any litellm model string with `--api-base` (`openai/<served-name>` for any
  OpenAI-compatible server): a server the user runs;
- any other litellm model string (`anthropic/...`, `openai/gpt-4o`): a hosted provider,
  keys from the environment.

`check_access` checks everything that can be checked before work starts (a known provider, the
keys it needs, a server that answers) and raises BadInput with one line otherwise."""

from __future__ import annotations

import os
import re
from typing import Literal

from pydantic import BaseModel

from .errors import BadInput

GOLD = "gold"
LOCAL_PREFIX = "local/"
# What a key-less local server is sent, so litellm's OpenAI client does not refuse to start.
PLACEHOLDER_KEY = "sk-harness-local"

Kind = Literal["gold", "local", "server", "hosted"]


def _litellm():
    # litellm would otherwise fetch its price table from GitHub at import.
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    import litellm

    litellm.suppress_debug_info = True
    return litellm


class ModelSpec(BaseModel):
    name: str                    # as the user wrote it
    kind: Kind
    litellm_model: str           # what the agent is given
    api_base: str | None = None  # None for hosted models and for gold (set per task)
    adapter: str | None = None

    @property
    def provider(self) -> str:
        return self.litellm_model.split("/", 1)[0] if "/" in self.litellm_model else ""

    def api_key(self) -> str | None:
        """A key for a server that needs none, when the environment has none for its
        provider; hosted models read their keys from the environment themselves."""
        if self.kind == "hosted":
            return None
        env_key = f"{self.provider.upper()}_API_KEY" if self.provider else "OPENAI_API_KEY"
        return None if os.environ.get(env_key) else PLACEHOLDER_KEY


def parse_model(name: str, api_base: str | None = None) -> ModelSpec:
    """Classify a model string; `local/` is resolved here (it names an endpoint record)."""
    name = name.strip()
    if not name:
        raise BadInput("empty --model")
    if name == GOLD:
        if api_base:
            raise BadInput("--model gold is served by the harness itself; drop --api-base")
        return ModelSpec(name=name, kind="gold", litellm_model="openai/gold")
    if name.startswith(LOCAL_PREFIX):
        adapter = name[len(LOCAL_PREFIX):]
        if not adapter:
            raise BadInput("local/<adapter> needs an adapter name")
        try:
            from .serve.endpoint import resolve_adapter_endpoint
        except ImportError:
            raise BadInput(f"{name}: serving local adapters is not available in this installation (harness.serve)") from None
        model, base = resolve_adapter_endpoint(adapter)
        return ModelSpec(name=name, kind="local", litellm_model=model, api_base=api_base or base, adapter=adapter)
    litellm = _litellm()
    try:
        _, provider, _, _ = litellm.get_llm_provider(name, api_base=api_base)
    except Exception:
        prefix = name.split("/", 1)[0] if "/" in name else None
        what = f"unknown model provider {prefix!r} in {name!r}" if prefix else f"cannot tell the provider of {name!r}"
        raise BadInput(f"{what}: write a litellm model string such as anthropic/<model> or openai/<model> "
                       "(with --api-base for your own server), local/<adapter> or gold") from None
    if not provider:
        raise BadInput(f"cannot tell the provider of {name!r}")
    return ModelSpec(name=name, kind="server" if api_base else "hosted", litellm_model=name, api_base=api_base)


def check_server(api_base: str, timeout_s: float = 5.0) -> None:
    """Any HTTP answer means a server is there; no answer at all is bad input."""
    import httpx

    url = api_base.rstrip("/") + "/models"
    try:
        httpx.get(url, timeout=timeout_s, follow_redirects=True)
    except httpx.HTTPError as exc:
        reason = str(exc).strip() or exc.__class__.__name__
        raise BadInput(f"no server answers at {api_base} ({reason})") from None


def check_access(spec: ModelSpec) -> None:
    """Bad input unless the model can be called from here: a server answers at its
    api_base, or litellm finds the hosted model's API key in the environment."""
    if spec.kind == "gold":
        return
    if spec.kind in ("server", "local"):
        check_server(spec.api_base or "")
        return
    litellm = _litellm()
    try:
        env = litellm.validate_environment(spec.litellm_model)
    except Exception as exc:
        raise BadInput(f"{spec.name}: litellm cannot check this model ({exc.__class__.__name__})") from None
    if not env.get("keys_in_environment"):
        missing = ", ".join(env.get("missing_keys") or []) or "its API key"
        raise BadInput(f"{spec.name}: {missing} is not set in the environment")


def config_name(spec: ModelSpec, taken: set[str] = frozenset(), contract: str = "") -> str:
    """A folder name for the model's configuration, unique among `taken`; a configuration
    with a prompt contract of its own has the contract's name after the model's."""
    label = f"{spec.name}--{contract}" if contract else spec.name
    base = re.sub(r"[^A-Za-z0-9._-]+", "-", label).strip("-.") or "model"
    name, n = base, 2
    while name in taken:
        name, n = f"{base}-{n}", n + 1
    return name
