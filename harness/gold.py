"""The `gold` model: a local OpenAI-compatible server that answers every request for a
task with the task's reference solution, written in the agent's edit format (for a
test-writing trial, with the task's own test file: kinds/: each kind's `gold_answer`). A harness
that does not pass every task with it is broken (the tasks were validated against their
references), the same check SWE-bench makes with gold patches.

The server is generic: `ChatServer` serves `/v1/chat/completions` under any route prefix
and asks a responder for each answer, so the tests' scripted model is the same server
with another responder. Routes carry everything needed to answer, with no guessing:
`/gold/<edit format>/<task key>/v1` for gold."""


import http.server
import json
import threading
import time
import uuid
from typing import Callable, Mapping

from .agents.editformat import render_diff, render_whole
from .errors import BadInput
from .task import Task, decode_text


class ModelError(Exception):
    """A responder's way to make the server fail a request (a provider outage in tests)."""

    def __init__(self, status: int, message: str = "scripted failure"):
        super().__init__(message)
        self.status = status


# (route, request body) -> the assistant's text; may raise ModelError.
Responder = Callable[[str, dict], str]


def _usage(body: dict, text: str) -> dict:
    """Word counts, deterministic and honest about being counts of words, not tokens."""
    prompt = sum(len(str(m.get("content") or "").split()) for m in body.get("messages") or [])
    completion = len(text.split())
    return {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion}


class _Handler(http.server.BaseHTTPRequestHandler):
    """The chat server's endpoints: `/health`, `[/<route>]/v1/chat/completions` and
    `[/<route>]/v1/models`. The standard library's threaded server, not an ASGI stack: it
    starts in milliseconds where FastAPI and uvicorn took about two seconds of imports, at
    the start of every gold run, while the agents' own imports compete for the cores."""

    protocol_version = "HTTP/1.1"  # keep-alive, as the agents' HTTP clients expect
    responder: Responder  # set on the subclass each server makes

    def _send(self, status: int, payload: dict) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _route(self, suffix: str) -> str | None:
        """The route prefix of a path ending in `suffix`, or None for any other path."""
        path = self.path.split("?", 1)[0]
        if path == suffix:
            return ""
        if path.endswith(suffix) and path.startswith("/"):
            return path[1:-len(suffix)]
        return None

    def do_GET(self) -> None:
        if self.path.split("?", 1)[0] == "/health":
            return self._send(200, {"status": "ok"})
        route = self._route("/v1/models")
        if route is None:
            return self._send(404, {"error": {"message": f"no such endpoint: {self.path}", "type": "not_found"}})
        self._send(200, {"object": "list", "data": [{"id": route or "model", "object": "model"}]})

    def do_POST(self) -> None:
        raw = self.rfile.read(int(self.headers.get("content-length") or 0))
        route = self._route("/v1/chat/completions")
        if route is None:
            return self._send(404, {"error": {"message": f"no such endpoint: {self.path}", "type": "not_found"}})
        try:
            body = json.loads(raw)
            if not isinstance(body, dict):
                raise ValueError("not a JSON object")
        except ValueError as exc:
            return self._send(400, {"error": {"message": f"unreadable request body: {exc}", "type": "invalid_request_error"}})
        try:
            text = self.responder(route, body)
        except ModelError as exc:
            return self._send(exc.status, {"error": {"message": str(exc), "type": "server_error"}})
        self._send(200, {
            "id": f"chatcmpl-{uuid.uuid4().hex[:16]}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": body.get("model", ""),
            "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": text}}],
            "usage": _usage(body, text),
        })

    def log_message(self, *args) -> None:
        pass


class ChatServer:
    """An OpenAI-compatible chat server on 127.0.0.1 and a free port, in a thread; each
    request is answered in a thread of its own, so a responder may block."""

    def __init__(self, responder: Responder):
        self.responder = responder
        self._server: http.server.ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None
        self.url = ""

    def start(self) -> "ChatServer":
        handler = type("Handler", (_Handler,), {"responder": staticmethod(self.responder)})
        self._server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, name="chat-server", daemon=True)
        self._thread.start()
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"
        return self

    def base(self, route: str) -> str:
        """The api_base for a route prefix."""
        return f"{self.url}/{route}/v1" if route else f"{self.url}/v1"

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
        if self._thread is not None:
            self._thread.join(10)
        self._server = self._thread = None

    def __enter__(self) -> "ChatServer":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()


# --- the reference as an answer -------------------------------------------------------


EDIT_FORMATS = ("whole", "diff")


def answer_text(start: Mapping[str, bytes], new: Mapping[str, bytes], edit_format: str, names_from: str = "") -> str:
    """Files changed from `start` to `new`, as an answer in the edit format, each named as
    the agent names it: from the folder `names_from` (AgentProfile.names_from)."""
    if names_from:
        start, new = _named_from(start, names_from), _named_from(new, names_from)
    if edit_format == "whole":
        return render_whole({name: decode_text(data, name) for name, data in new.items()})
    if edit_format == "diff":
        return render_diff({name: decode_text(data, name) for name, data in start.items()},
                           {name: decode_text(data, name) for name, data in new.items()})
    raise BadInput(f"the gold model has no answers in edit format {edit_format!r} (only {', '.join(EDIT_FORMATS)})")


def _named_from(files: Mapping[str, bytes], folder: str) -> dict[str, bytes]:
    prefix = folder.rstrip("/") + "/"
    return {name[len(prefix):] if name.startswith(prefix) else name: data for name, data in files.items()}


def reference_answer(task: Task, edit_format: str) -> str:
    return answer_text(task.stub_files(), task.reference_files(), edit_format)


class GoldModel:
    """The gold server and the tasks it knows, keyed by `<suite>/<slug>`."""

    def __init__(self) -> None:
        self.tasks: dict[str, tuple[Mapping[str, bytes], Mapping[str, bytes]]] = {}
        self._names_from: dict[str, str] = {}
        self._answers: dict[tuple[str, str], str] = {}
        self._lock = threading.Lock()
        self.server = ChatServer(self._respond)

    def add(self, suite: str, task: Task, answer: tuple[Mapping[str, bytes], Mapping[str, bytes]] | None = None,
            names_from: str = "") -> str:
        """Answer for `task` with its reference, or with `answer`: (the chat files as a
        trial starts, as gold leaves them), each file named from the folder `names_from`."""
        key = f"{suite}/{task.slug}" + (f"@{names_from}" if names_from else "")
        self.tasks[key] = answer or (task.stub_files(), task.reference_files())
        self._names_from[key] = names_from
        return key

    def api_base(self, edit_format: str, key: str) -> str:
        if edit_format not in EDIT_FORMATS:
            raise BadInput(f"the gold model has no answers in edit format {edit_format!r} (only {', '.join(EDIT_FORMATS)})")
        return self.server.base(f"gold/{edit_format}/{key}")

    def _respond(self, route: str, body: dict) -> str:
        parts = route.split("/", 2)
        if len(parts) != 3 or parts[0] != "gold" or parts[2] not in self.tasks:
            raise ModelError(404, f"no gold task at route {route!r}")
        edit_format, key = parts[1], parts[2]
        with self._lock:
            if (edit_format, key) not in self._answers:
                self._answers[(edit_format, key)] = answer_text(*self.tasks[key], edit_format, self._names_from[key])
            return self._answers[(edit_format, key)]

    def start(self) -> "GoldModel":
        self.server.start()
        return self

    def stop(self) -> None:
        self.server.stop()
