"""Tokens per second of the local backend on a GPU (or any device), printed as JSON.

A prepared check for a machine with CUDA, not part of the test command: it builds the tiny
random model (and a larger random one, about 30 M parameters) with two LoRA adapters each,
serves them with the harness's local server over real HTTP on localhost, and times greedy
chat completions for the base model and each adapter, a streamed request's first token,
and plain `generate` without the server for comparison. It needs only torch, transformers,
peft, fastapi, uvicorn and httpx besides this repository, and finishes in about a minute.

    python tests/gpu/bench_local_server.py --device cuda --out gpu-local-server.json
"""

from __future__ import annotations

import argparse
import json
import socket
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

MODELS = {
    "tiny": dict(),  # TinyModelSpec's defaults: about 100 K parameters
    "small": dict(vocab_size=512, hidden_size=512, intermediate_size=1536, num_layers=8, num_heads=8, num_kv_heads=4),
}
ASK = [{"role": "user", "content": "Write a C++ function that returns the sum of a vector of integers."}]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def serve_in_thread(engine):
    """The real app under uvicorn on a free port, in this process."""
    import httpx
    import uvicorn

    from harness.serve.local_server import create_app

    port = free_port()
    server = uvicorn.Server(uvicorn.Config(create_app(engine), host="127.0.0.1", port=port, log_level="warning"))
    threading.Thread(target=server.run, daemon=True).start()
    base = f"http://127.0.0.1:{port}/v1"
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"http://127.0.0.1:{port}/health", timeout=1).status_code == 200:
                return server, base
        except httpx.HTTPError:
            time.sleep(0.1)
    raise SystemExit("the local server did not come up")


def timed_requests(base: str, model: str, requests: int, max_tokens: int) -> dict:
    import httpx

    tokens, started = 0, time.perf_counter()
    for i in range(requests):
        reply = httpx.post(base + "/chat/completions", timeout=300, json={
            "model": model, "messages": ASK, "temperature": 0, "max_tokens": max_tokens})
        reply.raise_for_status()
        tokens += reply.json()["usage"]["completion_tokens"]
    seconds = time.perf_counter() - started
    return {"requests": requests, "completion_tokens": tokens, "seconds": round(seconds, 3),
            "tokens_per_s": round(tokens / seconds, 1)}


def first_token_seconds(base: str, model: str) -> float:
    import httpx

    started = time.perf_counter()
    with httpx.stream("POST", base + "/chat/completions", timeout=300, json={
            "model": model, "messages": ASK, "temperature": 0, "max_tokens": 32, "stream": True}) as reply:
        for line in reply.iter_lines():
            if line.startswith("data: ") and '"content": "' in line and '"content": ""' not in line:
                return round(time.perf_counter() - started, 4)
    return float("nan")


def direct_generate(engine, max_tokens: int, repeats: int) -> dict:
    import torch

    ids = torch.tensor([engine._prompt_ids(_request(engine.served_name, max_tokens))], device=engine.device)
    model = engine.model
    tokens, started = 0, time.perf_counter()
    with torch.inference_mode(), model.disable_adapter():
        for _ in range(repeats):
            out = model.generate(input_ids=ids, attention_mask=torch.ones_like(ids), do_sample=False,
                                 max_new_tokens=max_tokens, min_new_tokens=max_tokens,
                                 pad_token_id=engine.tokenizer.pad_token_id)
            tokens += out.shape[1] - ids.shape[1]
    if engine.device.startswith("cuda"):
        torch.cuda.synchronize()
    seconds = time.perf_counter() - started
    return {"completion_tokens": tokens, "seconds": round(seconds, 3), "tokens_per_s": round(tokens / seconds, 1)}


def engine_stream(engine, model: str, max_tokens: int, repeats: int) -> dict:
    """The server's generation path without HTTP: what the web layer costs is the rest."""
    tokens, started = 0, time.perf_counter()
    for _ in range(repeats):
        tokens += engine.complete(_request(model, max_tokens)).completion_tokens
    seconds = time.perf_counter() - started
    return {"completion_tokens": tokens, "seconds": round(seconds, 3), "tokens_per_s": round(tokens / seconds, 1)}


def _request(model: str, max_tokens: int):
    from harness.serve.local_server import ChatRequest

    return ChatRequest(model=model, messages=ASK, temperature=0, max_tokens=max_tokens)


def bench_model(name: str, shape: dict, root: Path, device: str, dtype: str, requests: int, max_tokens: int) -> dict:
    from harness.serve.local_server import Engine
    from tests.tinymodel import TinyModelSpec, build_tiny_model, make_random_adapter

    started = time.perf_counter()
    base = build_tiny_model(root / name, TinyModelSpec(**shape))
    adapters = {f"{name}-lora{seed}": make_random_adapter(base, root / f"{name}-lora{seed}", seed=seed) for seed in (1, 2)}
    engine = Engine(str(base), name, device=device, dtype=dtype, max_lora_rank=8)
    for adapter, path in adapters.items():
        engine.load_adapter(adapter, str(path))
    build_s = time.perf_counter() - started
    server, api = serve_in_thread(engine)
    try:
        timed_requests(api, name, 1, 8)  # warm-up: kernels, caches, clocks
        direct_generate(engine, 8, 1)
        result = {
            "parameters": sum(p.numel() for p in engine.model.get_base_model().parameters()),
            "dtype": str(next(engine.model.parameters()).dtype).replace("torch.", ""),
            "build_and_load_s": round(build_s, 2),
            "max_tokens": max_tokens,
            # Plain generate() first and last, so a clock or load drift shows as a difference.
            "direct_generate_base": direct_generate(engine, max_tokens, requests),
            "engine_no_http": {model: engine_stream(engine, model, max_tokens, requests) for model in [name, *adapters]},
            "served": {model: timed_requests(api, model, requests, max_tokens) for model in [name, *adapters]},
            "stream_first_token_s": first_token_seconds(api, next(iter(adapters))),
            "direct_generate_base_again": direct_generate(engine, max_tokens, requests),
        }
    finally:
        server.should_exit = True
    return result


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--device", default="cuda")
    p.add_argument("--requests", type=int, default=5, help="timed requests per model and adapter")
    p.add_argument("--max-tokens", type=int, default=128)
    p.add_argument("--models", default="tiny,small", help="comma-separated: " + ", ".join(MODELS))
    p.add_argument("--out", type=Path, help="also write the JSON here")
    args = p.parse_args()

    import peft
    import torch
    import transformers

    if args.device.startswith("cuda") and not torch.cuda.is_available():
        raise SystemExit("no CUDA device visible to torch")
    report = {
        "device": torch.cuda.get_device_name() if args.device.startswith("cuda") else args.device,
        "versions": {"torch": torch.__version__, "transformers": transformers.__version__, "peft": peft.__version__},
        "models": {},
    }
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        for name in args.models.split(","):
            dtype = "bfloat16" if name != "tiny" and args.device.startswith("cuda") else "float32"
            report["models"][name] = bench_model(name, MODELS[name], Path(tmp), args.device, dtype,
                                                 args.requests, args.max_tokens)
    report["total_s"] = round(time.perf_counter() - started, 1)
    text = json.dumps(report, indent=2)
    print(text)
    if args.out:
        args.out.write_text(text + "\n")


if __name__ == "__main__":
    main()
