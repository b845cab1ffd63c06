"""The vLLM launcher: the exact command line, environment and container it builds for a
set of adapters; and, with a stand-in `vllm` executable that runs the harness's local
server (same arguments, same protocol), its start, /health wait, failure reports and
run-time adapter load. vLLM itself cannot run on these machines."""

from __future__ import annotations

import json
import os
import stat
import sys
import time
from pathlib import Path

import pytest

from harness.errors import BadInput, InfraError
from harness.serve import vllm
from harness.serve.spec import ServedAdapter, ServeSpec, max_lora_rank, server_args

from .conftest import free_port


def spec_for(tmp_path: Path, **fields) -> ServeSpec:
    adapters = [
        ServedAdapter(name="sft", path=str(tmp_path / "ckpt" / "sft"), rank=8),
        ServedAdapter(name="grpo@iter14", path=str(tmp_path / "ckpt" / "grpo@iter14"), rank=12),
    ]
    return ServeSpec(base="Qwen/Qwen2.5-Coder-7B-Instruct", adapters=adapters, port=8123, **fields)


def test_command_line_for_two_adapters(tmp_path):
    spec = spec_for(tmp_path, gpus=2)
    assert vllm.process_command(spec, Path("/opt/vllm-env/bin/vllm")) == [
        "/opt/vllm-env/bin/vllm", "serve", "Qwen/Qwen2.5-Coder-7B-Instruct",
        "--served-model-name", "Qwen/Qwen2.5-Coder-7B-Instruct",
        "--host", "127.0.0.1",
        "--port", "8123",
        "--tensor-parallel-size", "2",
        "--enable-lora",
        "--max-lora-rank", "16",
        "--max-loras", "2",
        "--max-cpu-loras", "2",
        "--lora-modules",
        json.dumps({"name": "sft", "path": str(tmp_path / "ckpt" / "sft"),
                    "base_model_name": "Qwen/Qwen2.5-Coder-7B-Instruct"}, separators=(",", ":")),
        json.dumps({"name": "grpo@iter14", "path": str(tmp_path / "ckpt" / "grpo@iter14"),
                    "base_model_name": "Qwen/Qwen2.5-Coder-7B-Instruct"}, separators=(",", ":")),
    ]


def test_served_name_and_slots_override_defaults(tmp_path):
    spec = spec_for(tmp_path, served_name="coder", max_lora_rank=64, max_loras=1, max_cpu_loras=4)
    args = server_args(spec)
    assert args[args.index("--served-model-name") + 1] == "coder"
    assert args[args.index("--max-lora-rank") + 1] == "64"
    assert args[args.index("--max-loras") + 1] == "1"
    assert args[args.index("--max-cpu-loras") + 1] == "4"
    assert all(json.loads(m)["base_model_name"] == "coder" for m in args[args.index("--lora-modules") + 1:])
    with pytest.raises(BadInput, match="below --max-loras"):
        server_args(spec_for(tmp_path, max_loras=4, max_cpu_loras=2))


@pytest.mark.parametrize("ranks, requested, expected", [
    ([], None, 8), ([1], None, 1), ([2], None, 8), ([8, 12], None, 16), ([17], None, 32),
    ([300], None, 320), ([512], None, 512), ([8], 40, 64),
])
def test_max_lora_rank_rounds_up_to_a_size_vllm_accepts(ranks, requested, expected):
    assert max_lora_rank(ranks, requested) == expected


def test_ranks_vllm_cannot_serve_are_bad_input():
    with pytest.raises(BadInput, match="above the largest rank vLLM serves"):
        max_lora_rank([1024])
    with pytest.raises(BadInput, match="above the requested --max-lora-rank 16"):
        max_lora_rank([32], 16)


def test_environment_enables_runtime_loading_and_leaves_the_harness_env_out():
    harness_bin = str(Path(sys.prefix) / "bin")
    base = {"PATH": os.pathsep.join([harness_bin, "/usr/local/bin", "/usr/bin"]), "VIRTUAL_ENV": sys.prefix,
            "PYTHONPATH": "/somewhere", "HOME": "/home/u", "CUDA_VISIBLE_DEVICES": "0,1"}
    env = vllm.vllm_env(base)
    assert env == {"PATH": os.pathsep.join(["/usr/local/bin", "/usr/bin"]), "HOME": "/home/u",
                   "CUDA_VISIBLE_DEVICES": "0,1", "VLLM_ALLOW_RUNTIME_LORA_UPDATING": "True"}


def _executable(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


def test_vllm_inside_the_harness_environment_is_refused(tmp_path, monkeypatch):
    fake_prefix = tmp_path / "harness-venv"
    inside = _executable(fake_prefix / "bin" / "vllm", "#!/bin/sh\n")
    monkeypatch.setattr(sys, "prefix", str(fake_prefix))
    with pytest.raises(BadInput, match="inside the harness environment"):
        vllm.find_vllm(str(inside))
    outside = _executable(tmp_path / "vllm-env" / "bin" / "vllm", "#!/bin/sh\n")
    assert vllm.find_vllm(None, env={"PATH": str(outside.parent), "HARNESS_VLLM": str(outside)}) == outside
    assert vllm.find_vllm(None, env={"PATH": str(outside.parent)}) == outside
    with pytest.raises(BadInput, match="no `vllm` executable found"):
        vllm.find_vllm(None, env={"PATH": str(tmp_path / "empty")})


def test_container_spec(tmp_path):
    base = tmp_path / "models" / "base"
    base.mkdir(parents=True)
    spec = spec_for(tmp_path, gpus=4).model_copy(update={"base": str(base)})
    kwargs = vllm.container_spec(spec, "vllm/vllm-openai:v0.9.2", env={"HOME": "/home/u", "HF_TOKEN": "hf_x"})
    assert kwargs["image"] == "vllm/vllm-openai:v0.9.2"
    assert kwargs["command"][:2] == ["--model", str(base)]
    assert kwargs["command"][kwargs["command"].index("--host") + 1] == "0.0.0.0"
    assert kwargs["command"][kwargs["command"].index("--port") + 1] == "8000"
    assert kwargs["command"][kwargs["command"].index("--tensor-parallel-size") + 1] == "4"
    assert kwargs["ports"] == {"8000/tcp": ("127.0.0.1", 8123)}
    assert kwargs["device_requests"] == [{"count": 4, "capabilities": [["gpu"]]}]
    assert kwargs["environment"] == {"VLLM_ALLOW_RUNTIME_LORA_UPDATING": "True", "HF_TOKEN": "hf_x"}
    assert kwargs["ipc_mode"] == "host"
    # adapters' parent folder (later checkpoints load from beside them) and the base, at the same path
    assert kwargs["volumes"] == {
        str(tmp_path / "ckpt"): {"bind": str(tmp_path / "ckpt"), "mode": "ro"},
        str(base): {"bind": str(base), "mode": "ro"},
        "/home/u/.cache/huggingface": {"bind": "/root/.cache/huggingface", "mode": "rw"},
    }


# ---- the launcher against a stand-in `vllm` executable ----------------------------------------


def fake_vllm(folder: Path, body: str) -> Path:
    """An executable named vllm, outside the harness environment, that writes down how it
    was called (argv and the variables that matter) and then runs `body`."""
    seen = folder / "seen.json"
    script = f"""#!/bin/bash
"{sys.executable}" -c 'import json, os, sys
json.dump({{"argv": sys.argv[1:], "runtime_lora": os.environ.get("VLLM_ALLOW_RUNTIME_LORA_UPDATING"),
           "virtual_env": os.environ.get("VIRTUAL_ENV")}}, open("{seen}", "w"))' "$@"
{body}
"""
    return _executable(folder / "bin" / "vllm", script)


@pytest.fixture()
def cards(state_dir, tiny):
    from harness.adapter_card import write_card

    for name in ("alpha", "beta.v2", "gamma@iter3"):
        write_card(tiny.adapters[name], name=name, base_model=str(tiny.base))


@pytest.mark.slow
def test_start_wait_load_and_stop_through_the_vllm_launcher(tmp_path, cards, tiny):
    """`vllm serve ARGS` is answered by the local server given the same ARGS: the launcher's
    process start, /health wait, endpoint record, resolution and run-time load all run for
    real."""
    import httpx

    from harness.adapter_card import find_card
    from harness.serve import resolve_adapter_endpoint
    from harness.serve.endpoint import load_records
    from harness.serve.launch import LaunchOptions, load_card_on_server, pid_alive, spec_from_cards, start_server, stop_server

    exe = fake_vllm(tmp_path, f'shift; exec "{sys.executable}" -m harness.serve.local_server "$@" --device cpu')
    spec = spec_from_cards(str(tiny.base), ["alpha", "beta.v2"], port=free_port())
    record = start_server(spec, LaunchOptions(backend="vllm", runtime="process", vllm_bin=str(exe), health_timeout_s=300))
    try:
        seen = json.loads((tmp_path / "seen.json").read_text())
        assert seen["argv"] == ["serve", *server_args(spec)]
        assert seen["runtime_lora"] == "True" and seen["virtual_env"] is None
        assert (record.backend, record.runtime, record.max_lora_rank) == ("vllm", "process", 8)
        assert load_records() == [record]
        assert resolve_adapter_endpoint("beta.v2") == ("openai/beta.v2", record.api_base)

        card, card_file = find_card("gamma@iter3")
        assert "added successfully" in load_card_on_server(card, card_file, record)
        ids = [m["id"] for m in httpx.get(record.api_base + "/models").json()["data"]]
        assert ids == [str(tiny.base), "alpha", "beta.v2", "gamma@iter3"]
        assert load_records()[0].adapters["gamma@iter3"] == str(tiny.adapters["gamma@iter3"].resolve())

        from harness.adapter_card import write_card
        from tests.tinymodel import make_random_adapter

        wide = make_random_adapter(tiny.base, tmp_path / "wide", seed=9, rank=16)
        write_card(wide, name="wide", base_model=str(tiny.base))
        with pytest.raises(BadInput, match="has rank 16, above the server's maximum LoRA rank 8; restart it"):
            load_card_on_server(*find_card("wide"), record)
    finally:
        assert stop_server(record)
    assert not pid_alive(record.pid) and load_records() == []


@pytest.mark.slow
def test_a_server_that_dies_is_reported_with_its_own_log_lines(tmp_path, cards, tiny):
    from harness.serve.endpoint import load_records
    from harness.serve.launch import LaunchOptions, spec_from_cards, start_server

    exe = fake_vllm(tmp_path, 'echo "INFO starting"; echo "torch.OutOfMemoryError: CUDA out of memory (stand-in)" >&2; exit 1')
    spec = spec_from_cards(str(tiny.base), ["alpha"], port=free_port())
    with pytest.raises(InfraError) as caught:
        start_server(spec, LaunchOptions(runtime="process", vllm_bin=str(exe), health_timeout_s=60))
    message = str(caught.value)
    assert "exited before it answered /health" in message
    assert "CUDA out of memory (stand-in)" in message and "INFO starting" in message
    assert load_records() == []


@pytest.mark.slow
def test_a_server_that_never_answers_times_out_and_is_stopped(tmp_path, cards, tiny):
    from harness.serve.endpoint import load_records
    from harness.serve.launch import LaunchOptions, pid_alive, spec_from_cards, start_server

    exe = fake_vllm(tmp_path, 'echo "loading weights..."; echo $$ > "$(dirname "$0")/pid"; sleep 120')
    spec = spec_from_cards(str(tiny.base), [], port=free_port())
    started = time.monotonic()
    with pytest.raises(InfraError, match=r"did not answer /health within 2 s; its last log lines:\nloading weights"):
        start_server(spec, LaunchOptions(runtime="process", vllm_bin=str(exe), health_timeout_s=2))
    assert time.monotonic() - started < 30
    assert not pid_alive(int((tmp_path / "bin" / "pid").read_text()))
    assert load_records() == []


def test_serve_without_any_vllm_is_one_line_of_bad_input(state_dir, tmp_path):
    from .conftest import harness

    env_path = os.environ["PATH"]
    os.environ["PATH"] = str(tmp_path)  # no vllm anywhere
    try:
        result = harness("serve", "--base", "some/model", "--runtime", "process", "--port", str(free_port()))
    finally:
        os.environ["PATH"] = env_path
    assert result.returncode == 2
    assert result.stderr.startswith("error: no `vllm` executable found") and result.stderr.count("\n") == 1
