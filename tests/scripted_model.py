"""A test double for a model: an OpenAI-compatible server (harness.gold.ChatServer) whose
answers are scripted per served model name, in order or by a function of the request, and
which records every request.
Aider's background history summaries, and the harness's one-token pre-flight request before
a run (models.preflight), are answered apart and never consume the script."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Callable

from harness.gold import ChatServer, ModelError
from harness.models import PREFLIGHT_PROMPT

DEFAULT_REPLY = "I have nothing to add."


def is_preflight(body: dict) -> bool:
    return any(PREFLIGHT_PROMPT == m.get("content") for m in body.get("messages") or [])


def is_summary_request(body: dict) -> bool:
    messages = body.get("messages") or []
    return bool(messages) and "summarize this partial conversation" in str(messages[0].get("content") or "")


@dataclass
class Script:
    """Replies for one served model name: text, or an int for an HTTP error status. After
    the last one, `then` (a reply of the same kinds) answers every further request."""

    replies: list = field(default_factory=list)
    then: str | int = DEFAULT_REPLY
    delay_s: float = 0.0  # before every answer: a slow model
    # Replies chosen by the request itself (then `replies` and `then` are not used): the
    # answer for a prompt whatever order concurrent requests come in.
    by_request: Callable[[dict], str | int] | None = None


class ScriptedModel:
    def __init__(self, scripts: dict[str, Script]):
        self.scripts = scripts
        self.requests: dict[str, list[dict]] = {name: [] for name in scripts}
        self.summaries: list[dict] = []
        self.preflights: list[dict] = []
        self._lock = threading.Lock()
        self._stopped = threading.Event()  # ends scripted delays when the server stops
        self.server = ChatServer(self._respond)

    def _respond(self, route: str, body: dict) -> str:
        name = body.get("model", "")
        if is_preflight(body):
            with self._lock:
                self.preflights.append(body)
            if name not in self.scripts:
                raise ModelError(404, f"no script for model {name!r}")
            return "OK"
        if is_summary_request(body):
            with self._lock:
                self.summaries.append(body)
            return "We discussed the exercise and the test results."
        with self._lock:
            if name not in self.scripts:
                raise ModelError(404, f"no script for model {name!r}")
            seen = self.requests[name]
            seen.append(body)
            script = self.scripts[name]
            if script.by_request is not None:
                reply = script.by_request(body)
            else:
                reply = script.replies[len(seen) - 1] if len(seen) <= len(script.replies) else script.then
        self._stopped.wait(script.delay_s)
        if isinstance(reply, int):
            raise ModelError(reply, f"scripted HTTP {reply}")
        return reply

    def last_user_message(self, name: str, index: int) -> str:
        messages = self.requests[name][index]["messages"]
        return next(m["content"] for m in reversed(messages) if m["role"] == "user")

    @property
    def api_base(self) -> str:
        return self.server.base("")

    def __enter__(self) -> "ScriptedModel":
        self.server.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stopped.set()
        self.server.stop()
