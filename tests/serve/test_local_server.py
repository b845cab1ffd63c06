"""The local backend, started with the real `harness serve` command on a tiny random model
with two LoRA adapters: what it lists, that each adapter answers as transformers + peft
answer directly (token for token), run-time loading, vLLM's errors, streaming, stop
strings, seeds, and `local/<adapter>` through litellm."""

from __future__ import annotations

import json
import os

import httpx
import pytest

from harness.errors import BadInput

from .conftest import free_port, harness

pytestmark = pytest.mark.slow

ASK = [{"role": "user", "content": "Write a C++ function that adds two numbers."}]
N = 16


@pytest.fixture(scope="module")
def server(state_dir, tiny):
    for name in ("alpha", "beta.v2", "gamma@iter3"):
        added = harness("adapters", "add", str(tiny.adapters[name]), "--name", name, "--base", str(tiny.base))
        assert added.returncode == 0, added.stderr
    port = free_port()
    started = harness("serve", "--backend", "local", "--device", "cpu", "--base", str(tiny.base), "--served-name", "tiny",
                      "--adapter", "alpha", "--adapter", "beta.v2", "--port", str(port))
    assert started.returncode == 0, started.stderr
    from harness.serve.endpoint import find_record

    record = find_record(port)
    yield record
    from harness.serve.launch import stop_server

    stop_server(record)


def chat(server, model: str, **body) -> httpx.Response:
    payload = {"model": model, "messages": ASK, "temperature": 0, "max_tokens": N, **body}
    return httpx.post(server.api_base + "/chat/completions", json=payload, timeout=120)


def test_lists_base_and_adapters_with_parent(server, tiny):
    models = httpx.get(server.api_base + "/models").json()
    assert models["object"] == "list"
    assert [(m["id"], m["parent"]) for m in models["data"]] == [("tiny", None), ("alpha", "tiny"), ("beta.v2", "tiny")]
    assert models["data"][1]["root"] == str(tiny.adapters["alpha"].resolve())


def test_greedy_answers_differ_and_match_direct_peft_generate(server, tiny, direct):
    answers = {}
    for name in ("alpha", "beta.v2"):
        reply = chat(server, name)
        assert reply.status_code == 200, reply.text
        body = reply.json()
        ids, text = direct.greedy(ASK, N, adapter=tiny.adapters[name])
        assert body["choices"][0]["message"] == {"role": "assistant", "content": text}
        assert body["usage"]["completion_tokens"] == len(ids)
        assert body["usage"]["total_tokens"] == body["usage"]["prompt_tokens"] + len(ids)
        assert body["choices"][0]["finish_reason"] == ("length" if len(ids) == N else "stop")
        answers[name] = text
    assert answers["alpha"] != answers["beta.v2"]
    base = chat(server, "tiny").json()["choices"][0]["message"]["content"]
    assert base == direct.greedy(ASK, N)[1]
    assert base not in answers.values()


def test_unknown_model_is_a_404_shaped_like_vllm(server):
    reply = chat(server, "no-such-adapter")
    assert reply.status_code == 404
    assert reply.json() == {"error": {"message": "The model `no-such-adapter` does not exist.",
                                      "type": "NotFoundError", "param": None, "code": 404}}


def test_load_a_third_adapter_at_run_time_and_unload_it(server, tiny, direct):
    loaded = harness("adapters", "load", "gamma@iter3")
    assert loaded.returncode == 0, loaded.stderr
    assert "Success: LoRA adapter 'gamma@iter3' added successfully." in loaded.stdout
    ids = [m["id"] for m in httpx.get(server.api_base + "/models").json()["data"]]
    assert ids == ["tiny", "alpha", "beta.v2", "gamma@iter3"]
    assert chat(server, "gamma@iter3").json()["choices"][0]["message"]["content"] == \
        direct.greedy(ASK, N, adapter=tiny.adapters["gamma@iter3"])[1]

    twice = harness("adapters", "load", "gamma@iter3")
    assert twice.returncode == 2
    assert "The lora adapter 'gamma@iter3' has already been loaded." in twice.stderr

    unloaded = harness("adapters", "unload", "gamma@iter3")
    assert unloaded.returncode == 0 and "removed successfully" in unloaded.stdout
    assert chat(server, "gamma@iter3").status_code == 404
    again = httpx.post(server.api_base + "/unload_lora_adapter", json={"lora_name": "gamma@iter3"})
    assert again.status_code == 404
    assert again.json()["error"]["message"] == "The lora adapter 'gamma@iter3' cannot be found."


def test_load_errors_are_vllms(server, tmp_path):
    missing = httpx.post(server.api_base + "/load_lora_adapter", json={"lora_name": "x"})
    assert missing.status_code == 400
    assert missing.json()["error"]["message"] == "Both 'lora_name' and 'lora_path' must be provided."
    nowhere = httpx.post(server.api_base + "/load_lora_adapter", json={"lora_name": "x", "lora_path": str(tmp_path)})
    assert nowhere.status_code == 404 and "No adapter found" in nowhere.json()["error"]["message"]


def test_streaming_sends_the_same_answer_in_pieces(server):
    plain = chat(server, "alpha").json()
    with httpx.stream("POST", server.api_base + "/chat/completions", timeout=120,
                      json={"model": "alpha", "messages": ASK, "temperature": 0, "max_tokens": N, "stream": True,
                            "stream_options": {"include_usage": True}}) as reply:
        assert reply.status_code == 200
        assert reply.headers["content-type"].startswith("text/event-stream")
        events = [line[len("data: "):] for line in reply.iter_lines() if line.startswith("data: ")]
    assert events[-1] == "[DONE]"
    chunks = [json.loads(e) for e in events[:-1]]
    assert chunks[0]["choices"][0]["delta"]["role"] == "assistant"
    pieces = [c["choices"][0]["delta"].get("content", "") for c in chunks if c["choices"]]
    assert len([p for p in pieces if p]) > 1
    assert "".join(pieces) == plain["choices"][0]["message"]["content"]
    assert chunks[-2]["choices"][0]["finish_reason"] == plain["choices"][0]["finish_reason"]
    assert chunks[-1]["choices"] == [] and chunks[-1]["usage"] == plain["usage"]


def test_stop_strings_end_the_answer_before_them(server):
    full = chat(server, "alpha", max_tokens=N).json()["choices"][0]["message"]["content"]
    stop = next(full[i:i + 2] for i in range(len(full) // 2, len(full) - 1) if "\ufffd" not in full[i:i + 2])
    cut = chat(server, "alpha", stop=[stop]).json()
    assert cut["choices"][0]["message"]["content"] == full[: full.index(stop)]
    assert cut["choices"][0]["finish_reason"] == "stop"
    assert cut["usage"]["completion_tokens"] < N


def test_seeded_sampling_repeats(server):
    first = chat(server, "beta.v2", temperature=1.0, top_p=0.9, seed=7).json()["choices"][0]["message"]["content"]
    again = chat(server, "beta.v2", temperature=1.0, top_p=0.9, seed=7).json()["choices"][0]["message"]["content"]
    other = chat(server, "beta.v2", temperature=1.0, top_p=0.9, seed=8).json()["choices"][0]["message"]["content"]
    assert first == again != other


def test_too_long_requests_are_refused_like_vllm(server):
    reply = chat(server, "alpha", max_tokens=100_000)
    assert reply.status_code == 400
    assert "maximum context length is 8192 tokens" in reply.json()["error"]["message"]
    bad = httpx.post(server.api_base + "/chat/completions", json={"model": "alpha", "messages": []})
    assert bad.status_code == 400 and bad.json()["error"]["type"] == "BadRequestError"


def test_local_adapter_resolves_and_answers_through_litellm(server, tiny, direct):
    from harness.serve import resolve_adapter_endpoint

    model, api_base = resolve_adapter_endpoint("beta.v2")
    assert (model, api_base) == ("openai/beta.v2", server.api_base)
    with pytest.raises(BadInput, match="no running server serves adapter 'gamma@iter3'"):
        resolve_adapter_endpoint("gamma@iter3")

    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    import litellm

    reply = litellm.completion(model=model, api_base=api_base, api_key="unused", messages=ASK,
                               temperature=0, max_tokens=N)
    assert reply.choices[0].message.content == direct.greedy(ASK, N, adapter=tiny.adapters["beta.v2"])[1]
    assert reply.usage.completion_tokens > 0


def test_status_then_stop(server):
    status = harness("serve", "status", "--json")
    assert status.returncode == 0
    [entry] = json.loads(status.stdout)
    assert entry["healthy"] and entry["models"] == ["tiny", "alpha", "beta.v2"] and entry["backend"] == "local"

    stopped = harness("serve", "stop")
    assert stopped.returncode == 0 and f"stopped the server on port {server.port}" in stopped.stdout
    from harness.serve.launch import pid_alive

    assert not pid_alive(server.pid)
    assert json.loads(harness("serve", "status", "--json").stdout) == []
    with pytest.raises(BadInput, match="no running server serves adapter 'alpha'"):
        from harness.serve import resolve_adapter_endpoint

        resolve_adapter_endpoint("alpha")
