"""Model specs: what `--model` names and how the agent reaches it.

Kinds, told apart by the string alone:
- `gold`: the built-in server answering with each task's reference solution;
- `mutant:SHARE[:SEED]`: the built-in scripted model that answers a seeded SHARE of
  each trial's tasks with a faulty control or a mutant and the rest with the reference
  (mutant_model.py), for trying `compare` and `view` with no GPU and no key;
- `local/<adapter>`: an adapter served by `harness serve`, resolved to its endpoint;
- a litellm model string with an endpoint of its own, `openai/<served-name>@http://host:8000/v1`
  (or `--api-base` when the run has one model): a server the user runs;
- any other litellm model string (`anthropic/...`, `openai/gpt-4o`): a hosted provider,
  keys from the environment.

A models file (`--models-file`, litellm's proxy config format: `model_list` entries with a
`model_name` and `litellm_params` holding `model`, `api_base` and `api_key:
os.environ/VAR`) names endpoints once; `--model NAME` then takes the entry of that name, and
the configuration is named after it.

`check_access` checks everything that can be checked before work starts (a known provider, the
keys it needs, and one real chat request of one token) and raises BadInput with one line
otherwise."""

from __future__ import annotations

import datetime
import os
import re
import time
from collections.abc import Set
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from .errors import BadInput, invalid
from .fs import read_toml
from .llm import litellm as _litellm

GOLD = "gold"
MUTANT_PREFIX = "mutant:"
LOCAL_PREFIX = "local/"
# What a key-less local server is sent, so litellm's OpenAI client does not refuse to start.
PLACEHOLDER_KEY = "sk-harness-local"
# litellm's way, in a proxy config, to name an environment variable instead of a value.
ENV_PREFIX = "os.environ/"
# `MODEL@URL`: the endpoint of that model alone. Only a URL follows the @ (`local/a@iter14`
# names an adapter's checkpoint).
_ENDPOINT = re.compile(r"^(?P<model>.+?)@(?P<url>https?://\S+)$")

Kind = Literal["gold", "mutant", "local", "server", "hosted"]


class ModelSpec(BaseModel):
    name: str                    # the model as the run records it: the string given, without its endpoint
    kind: Kind
    litellm_model: str           # what the agent is given
    api_base: str | None = None  # None for hosted models and for the built-in ones (set per task)
    api_key_env: str | None = None  # the environment variable holding its key (a models file's api_key)
    adapter: str | None = None
    label: str | None = None     # a models file's model_name: what its configuration is called
    share: float | None = None   # mutant: the share of each trial's tasks answered wrongly
    seed: int = 0                # mutant: which ones
    # The last day of its training data (a models file's model_info.training_cutoff, an
    # adapter card's): reports split tasks by it (report/scope.py).
    training_cutoff: datetime.date | None = None

    @property
    def provider(self) -> str:
        return self.litellm_model.split("/", 1)[0] if "/" in self.litellm_model else ""

    @property
    def builtin(self) -> bool:
        """Served by the harness itself (gold, mutant): no key, no endpoint to check."""
        return self.kind in ("gold", "mutant")

    def api_key(self) -> str | None:
        """The key the agent sends: the models file's variable's value; for a server that
        needs none, a placeholder when the environment has no key for its provider; hosted
        models read their keys from the environment themselves."""
        if self.api_key_env:
            return os.environ.get(self.api_key_env)
        if self.kind == "hosted":
            return None
        env_key = f"{self.provider.upper()}_API_KEY" if self.provider else "OPENAI_API_KEY"
        return None if os.environ.get(env_key) else PLACEHOLDER_KEY


def split_endpoint(text: str) -> tuple[str, str | None]:
    """`openai/m@http://h:8000/v1` -> ("openai/m", "http://h:8000/v1"); no endpoint: (text, None)."""
    found = _ENDPOINT.match(text.strip())
    return (found["model"], found["url"]) if found else (text.strip(), None)


def _mutant(name: str) -> ModelSpec:
    share, _, seed = name[len(MUTANT_PREFIX):].partition(":")
    value: float | None
    try:
        value, number = float(share), int(seed or 0)
    except ValueError:
        value = None
    if value is None or not 0 < value <= 1:
        raise BadInput(f"{name}: write mutant:SHARE[:SEED], SHARE the share of each trial's tasks answered wrongly "
                       "(above 0, at most 1), SEED a whole number (for example mutant:0.3)")
    return ModelSpec(name=name, kind="mutant", litellm_model="openai/mutant", share=value, seed=number)


def parse_model(name: str, api_base: str | None = None, api_key_env: str | None = None) -> ModelSpec:
    """Classify a model string (`MODEL@URL` gives its own endpoint); `local/` is resolved
    here (it names an endpoint record)."""
    name, own = split_endpoint(name)
    if own and api_base and own != api_base:
        raise BadInput(f"{name}@{own}: the model names its own endpoint; drop --api-base")
    api_base = own or api_base
    if not name:
        raise BadInput("empty --model")
    if name == GOLD or name.startswith(MUTANT_PREFIX):
        if api_base:
            raise BadInput(f"--model {name} is served by the harness itself; give it no endpoint")
        return ModelSpec(name=name, kind="gold", litellm_model="openai/gold") if name == GOLD else _mutant(name)
    if name.startswith(LOCAL_PREFIX):
        adapter = name[len(LOCAL_PREFIX):]
        if not adapter:
            raise BadInput("local/<adapter> needs an adapter name")
        try:
            # an installation without harness.serve gets the message below
            from .serve.endpoint import resolve_adapter_endpoint
        except ImportError:
            raise BadInput(f"{name}: serving local adapters is not available in this installation (harness.serve)") from None
        model, base = resolve_adapter_endpoint(adapter)
        return ModelSpec(name=name, kind="local", litellm_model=model, api_base=api_base or base, adapter=adapter,
                         api_key_env=api_key_env)
    # An OpenAI-compatible server, the commonest case, needs no litellm to place it: its
    # import takes seconds, which a command refused for another reason should not pay.
    if not (name.startswith("openai/") and name != "openai/"):
        _check_provider(name, api_base)
    return ModelSpec(name=name, kind="server" if api_base else "hosted", litellm_model=name, api_base=api_base,
                     api_key_env=api_key_env)


def _check_provider(name: str, api_base: str | None) -> None:
    litellm = _litellm()
    try:
        _, provider, _, _ = litellm.get_llm_provider(name, api_base=api_base)
    except Exception:
        prefix = name.split("/", 1)[0] if "/" in name else None
        what = f"unknown model provider {prefix!r} in {name!r}" if prefix else f"cannot tell the provider of {name!r}"
        raise BadInput(f"{what}: write a litellm model string such as anthropic/<model>, or openai/<model>@URL for "
                       "your own server, local/<adapter>, gold or mutant:SHARE") from None
    if not provider:
        raise BadInput(f"cannot tell the provider of {name!r}")


# --- a models file -------------------------------------------------------------------------


class LitellmParams(BaseModel):
    model_config = ConfigDict(extra="forbid")

    model: str
    api_base: str | None = None
    api_key: str | None = None  # os.environ/VAR: the key stays in the environment


class ModelInfo(BaseModel):
    """litellm's metadata of a model; the harness reads only its training cutoff, and keeps
    the other keys litellm's proxy knows (max_tokens, ...) as they are."""

    model_config = ConfigDict(extra="allow")

    training_cutoff: datetime.date | None = None


class ModelEntry(BaseModel):
    model_config = ConfigDict(extra="forbid")

    model_name: str = Field(min_length=1)
    litellm_params: LitellmParams
    model_info: ModelInfo = Field(default_factory=ModelInfo)


class ModelsFile(BaseModel):
    model_config = ConfigDict(extra="forbid")

    model_list: list[ModelEntry] = Field(min_length=1)


def _from_env(value: str | None, what: str, source: Path) -> str | None:
    if value is None or not value.startswith(ENV_PREFIX):
        return value
    var = value[len(ENV_PREFIX):]
    if not os.environ.get(var):
        raise BadInput(f"{source}: {what} names {var}, which is not set in the environment")
    return os.environ[var]


def read_models_file(path: Path | str) -> dict[str, ModelSpec]:
    """A models file's entries by model_name, each parsed as `--model` would be."""
    path = Path(path)
    if not path.is_file():
        raise BadInput(f"{path}: no such models file")
    if path.suffix in (".yaml", ".yml"):
        # only a .yaml models file needs yaml (25 ms to import at every command's start otherwise)
        import yaml

        try:
            data = yaml.safe_load(path.read_text(encoding="utf-8"))
        except (yaml.YAMLError, UnicodeDecodeError) as exc:
            raise BadInput(f"{path}: not readable YAML ({type(exc).__name__})") from None
    elif path.suffix == ".toml":
        data = read_toml(path)
    else:
        raise BadInput(f"{path}: a models file is .yaml, .yml or .toml (litellm's model_list)")
    try:
        parsed = ModelsFile.model_validate(data)
    except ValidationError as exc:
        raise invalid(exc, str(path)) from None
    out: dict[str, ModelSpec] = {}
    for entry in parsed.model_list:
        params = entry.litellm_params
        key_env = None
        if params.api_key is not None:
            if not params.api_key.startswith(ENV_PREFIX):
                raise BadInput(f"{path}: {entry.model_name}: write api_key as os.environ/VARIABLE; a key written "
                               "in the file would travel with it")
            key_env = params.api_key[len(ENV_PREFIX):]
        if entry.model_name in out:
            raise BadInput(f"{path}: model_name {entry.model_name!r} is listed twice")
        spec = parse_model(params.model, _from_env(params.api_base, f"{entry.model_name}: api_base", path), key_env)
        out[entry.model_name] = spec.model_copy(update={"label": entry.model_name,
                                                        "training_cutoff": entry.model_info.training_cutoff})
    return out


# --- before any work -------------------------------------------------------------------------


# Statuses a one-token request is tried again after: the server is busy or briefly down.
# Anything else (a wrong path, model or key: 400, 401, 403, 404, 422; 501) will not change.
RETRIED_STATUSES = frozenset({408, 429, 500, 502, 503, 504})
PREFLIGHT_ATTEMPTS = 3
PREFLIGHT_TIMEOUT_S = 120.0
# The request's text: test doubles of a model tell it from a trial's requests by it.
PREFLIGHT_PROMPT = "harness pre-flight check: reply with one token."


def check_server(api_base: str, timeout_s: float = 5.0) -> None:
    """Any HTTP answer means a server is there; no answer at all is bad input."""
    # httpx takes 0.15 s to import: only when a server is checked
    import httpx

    url = api_base.rstrip("/") + "/models"
    try:
        httpx.get(url, timeout=timeout_s, follow_redirects=True)
    except httpx.HTTPError as exc:
        reason = str(exc).strip() or exc.__class__.__name__
        raise BadInput(f"no server answers at {api_base} ({reason})") from None


def check_keys(spec: ModelSpec) -> None:
    """Bad input unless the environment holds the keys the model's provider is sent with
    (litellm's list per provider: ANTHROPIC_API_KEY for anthropic/, OPENAI_API_KEY for a
    hosted openai/, ...); a server of the user's own needs none."""
    if spec.api_key_env:
        if not os.environ.get(spec.api_key_env):
            raise BadInput(f"{spec.label or spec.name}: {spec.api_key_env} is not set in the environment")
        return
    if spec.kind != "hosted":
        return  # a server of the user's own needs no key (one is sent if the environment has it)
    litellm = _litellm()
    try:
        env = litellm.validate_environment(spec.litellm_model)
    except Exception as exc:
        raise BadInput(f"{spec.name}: litellm cannot check this model ({exc.__class__.__name__})") from None
    if not env.get("keys_in_environment"):
        missing = " or ".join(env.get("missing_keys") or []) or "its API key"
        raise BadInput(f"{spec.name}: {missing} is not set in the environment")


def _status_hint(spec: ModelSpec, status: int | None) -> str:
    if status == 404:
        return " (is the endpoint right? an OpenAI-compatible server's ends in /v1)" if spec.api_base else ""
    if status in (401, 403):
        key = spec.api_key_env or (f"{spec.provider.upper()}_API_KEY" if spec.provider else "the API key")
        return f" (check {key})"
    return ""


def _first_line(text: str, limit: int = 200) -> str:
    line = " ".join(text.split())
    return line if len(line) <= limit else line[:limit - 1] + "…"


def _transport_error(exc: BaseException | None) -> BaseException | None:
    """The network failure under a provider error (no answer at all: a name that does not
    resolve, a refused connection), which litellm reports as a server error."""
    # httpx takes 0.15 s to import: only when a provider call failed
    import httpx

    seen = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        if isinstance(exc, (httpx.ConnectError, httpx.ConnectTimeout)):
            return exc
        exc = exc.__cause__ or exc.__context__
    return None


def preflight(spec: ModelSpec, timeout_s: float = PREFLIGHT_TIMEOUT_S, wait_s: float = 1.0) -> None:
    """One real chat request of one token, as the agent will make it. A status that will not
    change (4xx but 408 and 429, and 501) is bad input at once; a busy server is asked
    again, PREFLIGHT_ATTEMPTS times in all."""
    litellm = _litellm()
    where = f" at {spec.api_base}" if spec.api_base else ""
    for attempt in range(1, PREFLIGHT_ATTEMPTS + 1):
        try:
            litellm.completion(model=spec.litellm_model, messages=[{"role": "user", "content": PREFLIGHT_PROMPT}],
                               max_tokens=1, api_base=spec.api_base, api_key=spec.api_key(), timeout=timeout_s,
                               num_retries=0, max_retries=0)
            return
        except Exception as exc:
            unreachable = _transport_error(exc)
            if unreachable is not None:
                raise BadInput(f"{spec.label or spec.name}: cannot reach {spec.api_base or spec.provider + ' API'} "
                               f"({_first_line(str(unreachable)) or type(unreachable).__name__})") from None
            status = getattr(exc, "status_code", None)
            status = status if isinstance(status, int) else None
            if status in RETRIED_STATUSES and attempt < PREFLIGHT_ATTEMPTS:
                time.sleep(wait_s * attempt)
                continue
            message = _first_line(str(getattr(exc, "message", "") or exc) or type(exc).__name__)
            said = f"HTTP {status}" if status else type(exc).__name__
            tries = f" ({attempt} tries)" if attempt > 1 else ""
            raise BadInput(f"{spec.label or spec.name}: a one-token chat request{where} failed with {said}{tries}"
                           f"{_status_hint(spec, status)}: {message}") from None


def check_access(spec: ModelSpec) -> None:
    """Bad input unless the model can be called from here: its keys are set, a server answers
    at its endpoint, and a chat request of one token succeeds."""
    if spec.builtin:
        return
    check_keys(spec)
    if spec.kind in ("server", "local"):
        check_server(spec.api_base or "")
    preflight(spec)


def config_name(spec: ModelSpec, taken: Set[str] = frozenset(), contract: str = "") -> str:
    """A folder name for the model's configuration, unique among `taken`; a configuration
    with a prompt contract of its own has the contract's name after the model's."""
    own = spec.label or spec.name
    label = f"{own}--{contract}" if contract else own
    base = re.sub(r"[^A-Za-z0-9._-]+", "-", label).strip("-.") or "model"
    name, n = base, 2
    while name in taken:
        name, n = f"{base}-{n}", n + 1
    return name
