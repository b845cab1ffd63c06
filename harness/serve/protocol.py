"""The client side of the serving protocol vLLM and the local backend both speak: wait for
`/health`, list `/v1/models`, load and unload adapters at run time. A server's refusal
(4xx) is the user's to fix and becomes BadInput carrying the server's own message; a
server that cannot be reached is an infrastructure error."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Callable

from ..errors import BadInput, InfraError, InfraKind

if TYPE_CHECKING:
    import httpx

# httpx is imported where a request is made: every `harness` command reads the serving
# settings, and few make a request.


def api_base(host: str, port: int) -> str:
    """The URL an OpenAI client (litellm's `api_base`) is given."""
    shown = "127.0.0.1" if host in ("0.0.0.0", "") else host
    return f"http://{shown}:{port}/v1"


def server_root(base: str) -> str:
    return base[: -len("/v1")] if base.endswith("/v1") else base


def is_healthy(base: str, timeout_s: float = 2.0) -> bool:
    import httpx  # a tenth of a second to import: only commands that reach a server pay for it

    try:
        return httpx.get(server_root(base) + "/health", timeout=timeout_s).status_code == 200
    except httpx.HTTPError:
        return False


def wait_healthy(
    base: str,
    *,
    timeout_s: float,
    alive: Callable[[], bool] = lambda: True,
    log_tail: Callable[[], str] = lambda: "",
    what: str = "server",
    poll_s: float = 0.5,
) -> float:
    """Poll /health until it answers 200; return the seconds it took. If the server exits
    or the time runs out, raise InfraError with the server's own last log lines."""
    started = time.monotonic()
    while True:
        if is_healthy(base):
            return time.monotonic() - started
        if not alive():
            reason = "exited before it answered /health"
            break
        if time.monotonic() - started > timeout_s:
            reason = f"did not answer /health within {timeout_s:.0f} s"
            break
        time.sleep(poll_s)
    tail = log_tail().strip()
    detail = f"; its last log lines:\n{tail}" if tail else " (it wrote no log lines)"
    raise InfraError(InfraKind.provider, f"{what} at {server_root(base)} {reason}{detail}")


def _call(method: str, url: str, **kwargs) -> httpx.Response:
    import httpx  # as in is_healthy

    try:
        return httpx.request(method, url, timeout=kwargs.pop("timeout", 60.0), **kwargs)
    except httpx.HTTPError as exc:
        raise InfraError(InfraKind.provider, f"{url}: {exc.__class__.__name__}: {exc}") from None


def _refusal(response: httpx.Response) -> str:
    try:
        body = response.json()
    except ValueError:
        return response.text.strip() or response.reason_phrase
    err = body.get("error", body) if isinstance(body, dict) else body
    if isinstance(err, dict):
        return str(err.get("message") or err.get("detail") or err)
    return str(err)


def served_models(base: str, timeout_s: float = 10.0) -> list[dict]:
    response = _call("GET", base + "/models", timeout=timeout_s)
    if response.status_code != 200:
        raise InfraError(InfraKind.provider, f"{base}/models answered {response.status_code}: {_refusal(response)}")
    return response.json()["data"]


def load_adapter(base: str, name: str, path: str) -> str:
    response = _call("POST", base + "/load_lora_adapter", json={"lora_name": name, "lora_path": path}, timeout=600.0)
    if response.status_code >= 500:
        raise InfraError(InfraKind.provider, f"loading {name}: server error {response.status_code}: {_refusal(response)}")
    if response.status_code == 404 and "cannot be found" not in response.text and "No adapter" not in response.text:
        raise BadInput(f"the server at {server_root(base)} has no run-time adapter loading "
                       "(vLLM needs VLLM_ALLOW_RUNTIME_LORA_UPDATING=True)")
    if response.status_code != 200:
        raise BadInput(f"the server refused adapter {name}: {_refusal(response)}")
    return response.text.strip()


def unload_adapter(base: str, name: str) -> str:
    response = _call("POST", base + "/unload_lora_adapter", json={"lora_name": name})
    if response.status_code >= 500:
        raise InfraError(InfraKind.provider, f"unloading {name}: server error {response.status_code}: {_refusal(response)}")
    if response.status_code != 200:
        raise BadInput(f"the server refused to unload {name}: {_refusal(response)}")
    return response.text.strip()
