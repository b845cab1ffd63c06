"""The local backend: an OpenAI-compatible server on transformers + peft that answers the
part of vLLM's surface the harness uses, the same way vLLM answers it: `/health`,
`/v1/models` (base and adapters, with `parent`), `/v1/chat/completions` (plain and
streaming), `/v1/load_lora_adapter` and `/v1/unload_lora_adapter`, with vLLM's status
codes and error bodies. Several adapters share one base model and are switched per
request.

It is for small models, development, tests and machines without vLLM: requests are
answered one at a time. It takes the same command line as `vllm serve` (plus --device),
so the launcher builds one command for both:

    python -m harness.serve.local_server BASE --served-model-name NAME --port 8000 \\
        --enable-lora --lora-modules '{"name": "a", "path": "/adapters/a"}'
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import queue
import threading
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterator, Literal

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, PlainTextResponse, Response, StreamingResponse
from pydantic import BaseModel, ConfigDict, Field

log = logging.getLogger("harness.serve.local")


# ---- errors, shaped as vLLM shapes them --------------------------------------------------


class ApiError(Exception):
    def __init__(self, status: int, message: str, kind: str):
        super().__init__(message)
        self.status, self.message, self.kind = status, message, kind

    def response(self) -> JSONResponse:
        body = {"error": {"message": self.message, "type": self.kind, "param": None, "code": self.status}}
        return JSONResponse(body, status_code=self.status)


def bad_request(message: str, kind: str = "BadRequestError") -> ApiError:
    return ApiError(400, message, kind)


def not_found(message: str) -> ApiError:
    return ApiError(404, message, "NotFoundError")


# ---- request bodies ----------------------------------------------------------------------


class _Body(BaseModel):
    # Unknown fields are ignored, as vLLM ignores them (clients send provider extras).
    model_config = ConfigDict(extra="ignore")


class ChatMessage(_Body):
    role: str
    content: str | list[dict[str, Any]] | None = None

    def text(self) -> str:
        if self.content is None or isinstance(self.content, str):
            return self.content or ""
        return "".join(part.get("text", "") for part in self.content if part.get("type") == "text")


class StreamOptions(_Body):
    include_usage: bool = False


class ChatRequest(_Body):
    model: str
    messages: list[ChatMessage] = Field(min_length=1)
    temperature: float | None = Field(None, ge=0)
    top_p: float | None = Field(None, gt=0, le=1)
    max_tokens: int | None = Field(None, ge=1)
    max_completion_tokens: int | None = Field(None, ge=1)
    seed: int | None = None
    stop: str | list[str] | None = None
    stream: bool = False
    stream_options: StreamOptions | None = None
    n: int = Field(1, ge=1, le=1)

    def stop_strings(self) -> list[str]:
        stops = [self.stop] if isinstance(self.stop, str) else list(self.stop or [])
        return [s for s in stops if s]


class LoadAdapterRequest(_Body):
    lora_name: str | None = None
    lora_path: str | None = None


class UnloadAdapterRequest(_Body):
    lora_name: str | None = None
    lora_int_id: int | None = None


# ---- the model ---------------------------------------------------------------------------


@dataclass
class _Adapter:
    name: str
    path: str
    parent: str
    slot: str  # peft's name for it: served names may hold dots, which module names cannot


@dataclass
class Completion:
    text: str
    prompt_tokens: int
    completion_tokens: int
    finish_reason: Literal["stop", "length"]


class _Streamer:
    """generate()'s streamer protocol: each new token id goes to `on_token`. generate()
    first puts the prompt, which is skipped."""

    def __init__(self, on_token: Callable[[int], object]):
        self.on_token = on_token
        self._prompt_seen = False

    def put(self, value) -> None:
        if not self._prompt_seen:
            self._prompt_seen = True
            return
        for token in value.reshape(-1).tolist():
            self.on_token(token)

    def end(self) -> None:
        pass


def _held_back(text: str, stops: list[str]) -> int:
    """How many trailing characters could still become a stop string (or are half of a
    multi-byte character) and must not be sent yet."""
    hold = 0
    for stop in stops:
        for k in range(min(len(stop) - 1, len(text)), 0, -1):
            if text.endswith(stop[:k]):
                hold = max(hold, k)
                break
    while hold < len(text) and text[len(text) - 1 - hold] == "\ufffd":
        hold += 1
    return hold


class _Detokenizer:
    """Generated token ids to text pieces that are safe to send: a stop string ends the
    text before it, and trailing text that could still become one waits for more tokens.
    Streaming and plain requests both go through it, so they answer alike."""

    def __init__(self, tokenizer, stops: list[str]):
        self.tokenizer, self.stops = tokenizer, stops
        self.ids: list[int] = []
        self.text, self.sent, self.stopped = "", 0, False

    def add(self, token: int) -> str:
        if self.stopped:
            return ""  # generate() may add a token before it sees the stop string itself
        self.ids.append(token)
        self.text = self.tokenizer.decode(self.ids, skip_special_tokens=True)
        cut = min((i for i in (self.text.find(s) for s in self.stops) if i >= 0), default=-1)
        if cut >= 0:
            self.text, self.stopped = self.text[:cut], True
            return self.flush()
        return self._release(len(self.text) - _held_back(self.text, self.stops))

    def flush(self) -> str:
        return self._release(len(self.text))

    def _release(self, upto: int) -> str:
        piece = self.text[self.sent:upto] if upto > self.sent else ""
        self.sent = max(self.sent, upto)
        return piece


@dataclass
class _Job:
    model: str
    prompt: list[int]
    max_new: int
    stops: list[str]
    seed: int | None
    config: Any  # transformers.GenerationConfig


class Engine:
    """One base model with any number of adapters. Generation and adapter changes take one
    lock: peft switches adapters on the shared model, so requests run one at a time."""

    def __init__(self, base: str, served_name: str, *, device: str = "auto", dtype: str = "auto", max_lora_rank: int = 16,
                 cpu_threads: int | None = None):
        # torch and transformers are the train extra's, and seconds to import: only when a server starts.
        import torch
        from transformers import AutoModelForCausalLM, AutoTokenizer

        if device == "auto":
            device = "cuda" if torch.cuda.is_available() else "cpu"
        if device == "cpu":
            torch.set_num_threads(cpu_threads or max(1, (os.cpu_count() or 2) // 2))
        self.device = device
        self.base, self.served_name, self.max_lora_rank = base, served_name, max_lora_rank
        self.tokenizer = AutoTokenizer.from_pretrained(base)
        if self.tokenizer.chat_template is None:
            raise SystemExit(f"{base}: the tokenizer has no chat template; /v1/chat/completions needs one")
        torch_dtype = "auto" if dtype == "auto" else getattr(torch, dtype)
        self.model = AutoModelForCausalLM.from_pretrained(base, dtype=torch_dtype).to(device).eval()
        self.max_model_len = int(getattr(self.model.config, "max_position_embeddings", 2048))
        self.defaults = self._generation_defaults(base)
        self.adapters: dict[str, _Adapter] = {}
        self._slots = 0
        self.lock = threading.Lock()
        self.created = int(time.time())

    @staticmethod
    def _generation_defaults(base: str) -> dict[str, Any]:
        """Sampling defaults from the model's generation_config.json, which vLLM also
        applies to requests that leave them out."""
        path = Path(base) / "generation_config.json"
        if not path.is_file():
            return {}
        cfg = json.loads(path.read_text())
        return {k: cfg[k] for k in ("temperature", "top_p", "top_k", "max_new_tokens") if cfg.get(k) is not None}

    # -- adapters

    def load_adapter(self, name: str, path: str, parent: str | None = None) -> None:
        # peft: the train extra's, imported with the model (see __init__)
        from peft import PeftModel

        if name in self.adapters:
            raise bad_request(f"The lora adapter '{name}' has already been loaded.", "InvalidUserInput")
        cfg_file = Path(path) / "adapter_config.json"
        if not cfg_file.is_file():
            raise not_found(f"Loading lora {name} failed: No adapter found for {path}")
        rank = json.loads(cfg_file.read_text()).get("r", 0)
        if rank > self.max_lora_rank:
            raise bad_request(f"LoRA rank {rank} is greater than max_lora_rank {self.max_lora_rank}.")
        with self.lock:
            self._slots += 1
            slot = f"adapter{self._slots}"
            try:
                if isinstance(self.model, PeftModel):
                    self.model.load_adapter(path, adapter_name=slot)
                else:
                    self.model = PeftModel.from_pretrained(self.model, path, adapter_name=slot).eval()
            except Exception as exc:  # peft's own message says what is wrong with the files
                raise bad_request(f"Loading lora {name} failed: {exc}") from None
        self.adapters[name] = _Adapter(name, path, parent or self.served_name, slot)
        log.info("loaded adapter %s from %s", name, path)

    def unload_adapter(self, name: str) -> None:
        adapter = self.adapters.get(name)
        if adapter is None:
            raise not_found(f"The lora adapter '{name}' cannot be found.")
        with self.lock:
            del self.adapters[name]
            if self.adapters:
                self.model.delete_adapter(adapter.slot)
            else:  # the last one: back to the plain base model
                self.model = self.model.unload()
        log.info("unloaded adapter %s", name)

    # -- generation

    def _prompt_ids(self, request: ChatRequest) -> list[int]:
        messages = [{"role": m.role, "content": m.text()} for m in request.messages]
        text = self.tokenizer.apply_chat_template(messages, tokenize=False, add_generation_prompt=True)
        return self.tokenizer(text, add_special_tokens=False)["input_ids"]

    def _max_new_tokens(self, request: ChatRequest, prompt_len: int) -> int:
        room = self.max_model_len - prompt_len
        if room <= 0:
            raise bad_request(
                f"This model's maximum context length is {self.max_model_len} tokens. However, your request "
                f"has {prompt_len} input tokens. Please reduce the length of the input messages."
            )
        asked = request.max_completion_tokens or request.max_tokens
        if asked is None:
            return min(self.defaults.get("max_new_tokens", room), room)
        if asked > room:
            raise bad_request(
                f"'max_tokens' is too large: {asked}. This model's maximum context length is "
                f"{self.max_model_len} tokens and your request has {prompt_len} input tokens "
                f"({asked} > {self.max_model_len} - {prompt_len})."
            )
        return asked

    def check_model(self, name: str) -> None:
        if name != self.served_name and name not in self.adapters:
            raise not_found(f"The model `{name}` does not exist.")

    def _prepare(self, request: ChatRequest) -> _Job:
        """Everything that can refuse the request, before any token is generated."""
        # transformers: the train extra's, imported with the model (see __init__)
        from transformers import GenerationConfig

        self.check_model(request.model)
        prompt = self._prompt_ids(request)
        max_new = self._max_new_tokens(request, len(prompt))
        stops = request.stop_strings()
        temperature = request.temperature if request.temperature is not None else self.defaults.get("temperature", 1.0)
        sampling = temperature > 0
        config = GenerationConfig(
            max_new_tokens=max_new,
            do_sample=sampling,
            temperature=temperature if sampling else None,
            top_p=(request.top_p or self.defaults.get("top_p", 1.0)) if sampling else None,
            top_k=self.defaults.get("top_k", 0) if sampling else None,
            eos_token_id=self.tokenizer.eos_token_id,
            pad_token_id=self.tokenizer.pad_token_id,
            stop_strings=stops or None,
        )
        return _Job(request.model, prompt, max_new, stops, request.seed, config)

    def _generate(self, job: _Job, on_token: Callable[[int], object]) -> None:
        # torch: the train extra's, imported with the model (see __init__)
        import torch

        with self.lock:
            adapter = self.adapters.get(job.model)
            if adapter is None and job.model != self.served_name:
                raise not_found(f"The model `{job.model}` does not exist.")  # unloaded meanwhile
            ids = torch.tensor([job.prompt], device=self.device)
            if job.seed is not None:
                torch.manual_seed(job.seed)
            kwargs = dict(input_ids=ids, attention_mask=torch.ones_like(ids), generation_config=job.config,
                          streamer=_Streamer(on_token), tokenizer=self.tokenizer)
            with torch.inference_mode():
                if adapter is not None:
                    self.model.set_adapter(adapter.slot)
                    self.model.generate(**kwargs)
                elif hasattr(self.model, "disable_adapter"):
                    with self.model.disable_adapter():
                        self.model.generate(**kwargs)
                else:
                    self.model.generate(**kwargs)

    def _finish(self, job: _Job, text: _Detokenizer, started: float) -> Completion:
        n = len(text.ids)
        ended_on_eos = n > 0 and text.ids[-1] == self.tokenizer.eos_token_id
        finish: Literal["stop", "length"] = "stop" if text.stopped or ended_on_eos or n < job.max_new else "length"
        log.info("completion model=%s prompt_tokens=%d completion_tokens=%d finish=%s seconds=%.3f",
                 job.model, len(job.prompt), n, finish, time.monotonic() - started)
        return Completion(text.text, len(job.prompt), n, finish)

    def complete(self, request: ChatRequest) -> Completion:
        """A plain request: generate in the caller's thread (handing tokens to another
        thread costs a GIL switch per token, which on a GPU made decoding several times
        slower)."""
        job, started = self._prepare(request), time.monotonic()
        text = _Detokenizer(self.tokenizer, job.stops)
        self._generate(job, text.add)
        text.flush()
        return self._finish(job, text, started)

    def stream(self, request: ChatRequest) -> Iterator[str | Completion]:
        """A streamed request: text pieces as they are generated, then the Completion.
        Refusals are raised here, before the first piece."""
        job, started = self._prepare(request), time.monotonic()
        tokens: queue.Queue = queue.Queue()

        def run() -> None:
            try:
                self._generate(job, tokens.put)
            except Exception as exc:
                tokens.put(exc)
            tokens.put(None)

        def pieces() -> Iterator[str | Completion]:
            text = _Detokenizer(self.tokenizer, job.stops)
            threading.Thread(target=run, daemon=True).start()
            while (token := tokens.get()) is not None:
                if isinstance(token, Exception):
                    raise token
                if piece := text.add(token):
                    yield piece
            if piece := text.flush():
                yield piece
            yield self._finish(job, text, started)

        return pieces()


# ---- the HTTP surface --------------------------------------------------------------------


def _usage(done: Completion) -> dict[str, int]:
    return {
        "prompt_tokens": done.prompt_tokens,
        "completion_tokens": done.completion_tokens,
        "total_tokens": done.prompt_tokens + done.completion_tokens,
    }


def create_app(engine: Engine) -> FastAPI:
    app = FastAPI(title="harness local server", docs_url=None, redoc_url=None, openapi_url=None)
    app.state.engine = engine

    @app.exception_handler(ApiError)
    async def api_error(_request: Request, exc: ApiError):
        return exc.response()

    @app.exception_handler(RequestValidationError)
    async def invalid(_request: Request, exc: RequestValidationError):
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first.get("loc", ()) if p != "body")
        return bad_request(f"{where}: {first.get('msg')}" if where else str(first.get("msg"))).response()

    @app.get("/health")
    def health():
        return Response(status_code=200)

    @app.get("/v1/models")
    def models():
        def card(id_: str, root: str, parent: str | None, **extra):
            return {"id": id_, "object": "model", "created": engine.created, "owned_by": "harness-local",
                    "root": root, "parent": parent, "permission": [], **extra}

        data = [card(engine.served_name, engine.base, None, max_model_len=engine.max_model_len)]
        data += [card(a.name, a.path, a.parent) for a in engine.adapters.values()]
        return {"object": "list", "data": data}

    @app.post("/v1/load_lora_adapter")
    def load_lora_adapter(body: LoadAdapterRequest):
        if not body.lora_name or not body.lora_path:
            raise bad_request("Both 'lora_name' and 'lora_path' must be provided.", "InvalidUserInput")
        engine.load_adapter(body.lora_name, body.lora_path)
        return PlainTextResponse(f"Success: LoRA adapter '{body.lora_name}' added successfully.")

    @app.post("/v1/unload_lora_adapter")
    def unload_lora_adapter(body: UnloadAdapterRequest):
        if not body.lora_name and not body.lora_int_id:
            raise bad_request("either 'lora_name' and 'lora_int_id' needs to be provided.", "InvalidUserInput")
        engine.unload_adapter(body.lora_name or "")
        return PlainTextResponse(f"Success: LoRA adapter '{body.lora_name}' removed successfully.")

    @app.post("/v1/chat/completions")
    def chat_completions(body: ChatRequest):
        ident, created = f"chatcmpl-{uuid.uuid4().hex}", int(time.time())
        if not body.stream:
            done = engine.complete(body)
            return {
                "id": ident, "object": "chat.completion", "created": created, "model": body.model,
                "choices": [{"index": 0, "message": {"role": "assistant", "content": done.text},
                             "logprobs": None, "finish_reason": done.finish_reason}],
                "usage": _usage(done),
            }
        pieces = engine.stream(body)

        def chunk(delta: dict, finish: str | None = None, usage: dict | None = None, choices: bool = True) -> str:
            payload = {"id": ident, "object": "chat.completion.chunk", "created": created, "model": body.model,
                       "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}] if choices else []}
            if usage is not None:
                payload["usage"] = usage
            return f"data: {json.dumps(payload)}\n\n"

        def events() -> Iterator[str]:
            yield chunk({"role": "assistant", "content": ""})
            for item in pieces:
                if isinstance(item, Completion):
                    yield chunk({}, item.finish_reason)
                    if body.stream_options and body.stream_options.include_usage:
                        yield chunk({}, usage=_usage(item), choices=False)
                else:
                    yield chunk({"content": item})
            yield "data: [DONE]\n\n"

        return StreamingResponse(events(), media_type="text/event-stream")

    return app


# ---- command line (a subset of `vllm serve`'s) ----------------------------------------------


def parse_lora_module(text: str) -> dict[str, str | None]:
    """`name=path` or vLLM's JSON form `{"name": ..., "path": ..., "base_model_name": ...}`."""
    if text.lstrip().startswith("{"):
        data = json.loads(text)
        return {"name": data["name"], "path": data["path"], "base_model_name": data.get("base_model_name")}
    name, sep, path = text.partition("=")
    if not sep or not name or not path:
        raise argparse.ArgumentTypeError(f"--lora-modules: expected name=path or JSON, got {text!r}")
    return {"name": name, "path": path, "base_model_name": None}


def argument_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m harness.serve.local_server",
        description="OpenAI-compatible server for a base model and LoRA adapters on transformers + peft. "
        "For small models, development and machines without vLLM; requests run one at a time.",
    )
    p.add_argument("model_tag", nargs="?", help="base model: hub id or local folder")
    p.add_argument("--model", dest="model_flag", help="the base model (same as the positional argument)")
    p.add_argument("--served-model-name", help="the base model's name on the endpoint")
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=8000)
    p.add_argument("--enable-lora", action="store_true", help="accepted for vLLM parity; adapters are always enabled")
    p.add_argument("--lora-modules", nargs="+", type=parse_lora_module, default=[])
    p.add_argument("--max-lora-rank", type=int, default=16)
    p.add_argument("--max-loras", type=int, default=1, help="accepted for vLLM parity")
    p.add_argument("--max-cpu-loras", type=int, default=None, help="accepted for vLLM parity")
    p.add_argument("--tensor-parallel-size", type=int, default=1, help="accepted for vLLM parity; one device is used")
    p.add_argument("--device", default="auto", help="cpu, cuda, cuda:N or auto")
    p.add_argument("--dtype", default="auto", help="auto, float32, bfloat16 or float16")
    # Small models gain nothing from many threads, and on a busy machine spinning OpenMP
    # threads make each decoding step dozens of times slower; default: half the cores.
    p.add_argument("--cpu-threads", type=int, default=None, help="torch threads on CPU (default: half the cores)")
    return p


def main(argv: list[str] | None = None) -> None:
    # uvicorn: only for a server process, not for the tests and tools that import this module
    import uvicorn

    args = argument_parser().parse_args(argv)
    base = args.model_flag or args.model_tag
    if not base:
        argument_parser().error("name the base model")
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    engine = Engine(base, args.served_model_name or base, device=args.device, dtype=args.dtype,
                    max_lora_rank=args.max_lora_rank, cpu_threads=args.cpu_threads)
    for module in args.lora_modules:
        try:
            engine.load_adapter(module["name"], module["path"], module["base_model_name"])
        except ApiError as exc:
            raise SystemExit(f"adapter {module['name']}: {exc.message}")
    log.info("serving %s with %d adapter(s) on %s", engine.served_name, len(engine.adapters), engine.device)
    uvicorn.run(create_app(engine), host=args.host, port=args.port, log_level="info")


if __name__ == "__main__":
    main()
