"""The `gold` model: a local OpenAI-compatible server that answers every request for a
task with the task's reference solution, written in the agent's edit format (for a
test-writing trial, with the task's own test file: task_kind.py's `gold_answer`). A harness
that does not pass every task with it is broken (the tasks were validated against their
references), the same check SWE-bench makes with gold patches.

The server is generic: `ChatServer` serves `/v1/chat/completions` under any route prefix
and asks a responder for each answer, so the tests' scripted model is the same server
with another responder. Routes carry everything needed to answer, with no guessing:
`/gold/<edit format>/<task key>/v1` for gold."""


import asyncio
import threading
import time
import uuid
from typing import Callable, Mapping

from .editformat import render_diff, render_whole
from .errors import BadInput
from .task import Task


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


def _app(responder: Responder):
    from fastapi import FastAPI, Request
    from fastapi.responses import JSONResponse

    app = FastAPI(title="harness chat server", docs_url=None, redoc_url=None, openapi_url=None)

    @app.get("/health")
    async def health():
        return {"status": "ok"}

    async def complete(route: str, request: Request):
        body = await request.json()
        try:
            # Responders may block (a scripted delay, disk reads); keep the loop free.
            text = await asyncio.to_thread(responder, route, body)
        except ModelError as exc:
            return JSONResponse(status_code=exc.status, content={"error": {"message": str(exc), "type": "server_error"}})
        return {
            "id": f"chatcmpl-{uuid.uuid4().hex[:16]}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": body.get("model", ""),
            "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": text}}],
            "usage": _usage(body, text),
        }

    @app.post("/v1/chat/completions")
    async def chat_root(request: Request):
        return await complete("", request)

    @app.post("/{route:path}/v1/chat/completions")
    async def chat(route: str, request: Request):
        return await complete(route, request)

    @app.get("/{route:path}/v1/models")
    async def models(route: str):
        return {"object": "list", "data": [{"id": route or "model", "object": "model"}]}

    return app


class ChatServer:
    """An OpenAI-compatible chat server on 127.0.0.1 and a free port, in a thread."""

    def __init__(self, responder: Responder):
        self.responder = responder
        self._server = None
        self._thread: threading.Thread | None = None
        self.url = ""

    def start(self, timeout_s: float = 20.0) -> "ChatServer":
        import uvicorn

        config = uvicorn.Config(
            _app(self.responder), host="127.0.0.1", port=0, log_level="error", access_log=False, lifespan="off"
        )
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(target=self._server.run, name="chat-server", daemon=True)
        self._thread.start()
        deadline = time.monotonic() + timeout_s
        while not self._server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError("the local chat server did not start")
            time.sleep(0.01)
        port = self._server.servers[0].sockets[0].getsockname()[1]
        self.url = f"http://127.0.0.1:{port}"
        return self

    def base(self, route: str) -> str:
        """The api_base for a route prefix."""
        return f"{self.url}/{route}/v1" if route else f"{self.url}/v1"

    def stop(self) -> None:
        if self._server is not None:
            self._server.should_exit = True
        if self._thread is not None:
            self._thread.join(10)
        self._server = self._thread = None

    def __enter__(self) -> "ChatServer":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()


# --- the reference as an answer -------------------------------------------------------


EDIT_FORMATS = ("whole", "diff")


def answer_text(start: Mapping[str, bytes], new: Mapping[str, bytes], edit_format: str) -> str:
    """Files changed from `start` to `new`, as an answer in the edit format."""
    if edit_format == "whole":
        return render_whole({name: data.decode() for name, data in new.items()})
    if edit_format == "diff":
        return render_diff({name: data.decode() for name, data in start.items()},
                           {name: data.decode() for name, data in new.items()})
    raise BadInput(f"the gold model has no answers in edit format {edit_format!r} (only {', '.join(EDIT_FORMATS)})")


def reference_answer(task: Task, edit_format: str) -> str:
    return answer_text(task.stub_files(), task.reference_files(), edit_format)


class GoldModel:
    """The gold server and the tasks it knows, keyed by `<suite>/<slug>`."""

    def __init__(self) -> None:
        self.tasks: dict[str, tuple[Mapping[str, bytes], Mapping[str, bytes]]] = {}
        self._answers: dict[tuple[str, str], str] = {}
        self._lock = threading.Lock()
        self.server = ChatServer(self._respond)

    def add(self, suite: str, task: Task, answer: tuple[Mapping[str, bytes], Mapping[str, bytes]] | None = None) -> str:
        """Answer for `task` with its reference, or with `answer`: (the chat files as a
        trial starts, as gold leaves them)."""
        key = f"{suite}/{task.slug}"
        self.tasks[key] = answer or (task.stub_files(), task.reference_files())
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
                self._answers[(edit_format, key)] = answer_text(*self.tasks[key], edit_format)
            return self._answers[(edit_format, key)]

    def start(self) -> "GoldModel":
        self.server.start()
        return self

    def stop(self) -> None:
        self.server.stop()
