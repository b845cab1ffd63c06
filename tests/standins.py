"""Stand-ins for the endpoints a newcomer's commands reach: a hosted provider that speaks
Anthropic's Messages API (litellm's anthropic/ models, pointed at it by ANTHROPIC_API_BASE),
answering as a scripted OpenAI-compatible server answers. Each records the requests and
the key it was sent."""

from __future__ import annotations

import http.server
import json
import threading
from typing import Callable

from harness.gold import _Handler as _ChatHandler

# (the request's messages as OpenAI's shape, the whole body) -> the assistant's text
Reply = Callable[[list[dict], dict], str]


class _JsonHandler(_ChatHandler):
    """The chat server's JSON answers (gold.py), with the methods each stand-in defines."""


class _StandIn:
    """A server on 127.0.0.1 and a free port, in a thread, answered by `handler()`'s class."""

    _server: http.server.ThreadingHTTPServer | None = None

    def handler(self) -> type[_JsonHandler]:
        raise NotImplementedError

    def __enter__(self):
        self._server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), self.handler())
        self._server.daemon_threads = True
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    @property
    def root(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def __exit__(self, *exc) -> None:
        self._server.shutdown()
        self._server.server_close()


class AnthropicStandIn(_StandIn):
    """POST /v1/messages, answered by `reply`."""

    def __init__(self, reply: Reply):
        self.reply = reply
        self.requests: list[dict] = []
        self.keys: list[str | None] = []

    def handler(self) -> type[_JsonHandler]:
        stand_in = self

        class Handler(_JsonHandler):
            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers.get("content-length") or 0)))
                if self.path.split("?")[0].rstrip("/") != "/v1/messages":
                    return self._send(404, {"type": "error", "error": {"type": "not_found_error", "message": self.path}})
                stand_in.requests.append(body)
                stand_in.keys.append(self.headers.get("x-api-key"))
                messages = [{"role": "system", "content": _text(body.get("system"))}] if body.get("system") else []
                messages += [{"role": m["role"], "content": _text(m.get("content"))} for m in body.get("messages") or []]
                text = stand_in.reply(messages, body)
                self._send(200, {"id": "msg_standin", "type": "message", "role": "assistant", "model": body.get("model"),
                                 "content": [{"type": "text", "text": text}], "stop_reason": "end_turn",
                                 "stop_sequence": None, "usage": {"input_tokens": 1, "output_tokens": len(text.split())}})

        return Handler

    @property
    def url(self) -> str:
        return self.root


def _text(content) -> str:
    if isinstance(content, list):
        return "\n".join(str(part.get("text", "")) for part in content if isinstance(part, dict))
    return "" if content is None else str(content)


class StatusServer(_StandIn):
    """An HTTP server that answers every request with the next of `statuses` (the last one
    once they run out; 200 is a one-token chat completion), counting GETs and POSTs: a
    wrong endpoint, a server that does not implement chat, a busy one."""

    def __init__(self, statuses: list[int]):
        self.statuses = list(statuses)
        self.posts = 0
        self.gets = 0
        self.keys: list[str | None] = []  # the Authorization header of each POST

    def _next(self) -> int:
        return self.statuses.pop(0) if len(self.statuses) > 1 else self.statuses[0]

    def handler(self) -> type[_JsonHandler]:
        stand_in = self

        class Handler(_JsonHandler):
            def do_GET(self) -> None:
                stand_in.gets += 1
                self._send(404, {"detail": "Not Found"})

            def do_POST(self) -> None:
                self.rfile.read(int(self.headers.get("content-length") or 0))
                stand_in.posts += 1
                stand_in.keys.append(self.headers.get("authorization"))
                status = stand_in._next()
                if status == 200:
                    return self._send(200, {"id": "c", "object": "chat.completion", "created": 0, "model": "m",
                                            "choices": [{"index": 0, "finish_reason": "length",
                                                         "message": {"role": "assistant", "content": "OK"}}],
                                            "usage": {"prompt_tokens": 5, "completion_tokens": 1, "total_tokens": 6}})
                self._send(status, {"error": {"message": f"scripted status {status}", "type": "scripted"}})

        return Handler

    @property
    def url(self) -> str:
        return f"{self.root}/v1"
