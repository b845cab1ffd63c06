"""The vLLM backend. vLLM pins its own torch and openai, so it never lives in the harness's
environment: it runs from a `vllm` executable in an environment of its own, or from the
`vllm/vllm-openai` container image with GPUs passed through. This module builds the exact
command line, environment and container spec; starting, waiting on /health and adapter
loading are shared with the local backend (`launch`, `protocol`)."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path
from typing import Mapping

from ..errors import BadInput, InfraError, InfraKind
from .spec import ServeSpec, server_args

DEFAULT_IMAGE = "vllm/vllm-openai:latest"
CONTAINER_PORT = 8000
RUNTIME_LORA_ENV = {"VLLM_ALLOW_RUNTIME_LORA_UPDATING": "True"}
# Variables that would point vLLM's Python at the harness's environment.
_HARNESS_ENV_VARS = ("VIRTUAL_ENV", "PYTHONPATH", "PYTHONHOME", "CONDA_PREFIX")


def _inside(path: Path, root: Path) -> bool:
    try:
        path.resolve().relative_to(root.resolve())
        return True
    except ValueError:
        return False


def harness_bin_dirs() -> list[Path]:
    return [Path(sys.prefix) / "bin", Path(sys.executable).parent]


def find_vllm(explicit: str | None = None, env: Mapping[str, str] | None = None) -> Path:
    """The `vllm` executable: --vllm-bin, else $HARNESS_VLLM, else `vllm` on PATH. One that
    lives in the harness's own environment is refused."""
    env = os.environ if env is None else env
    named = explicit or env.get("HARNESS_VLLM")
    if named:
        path = Path(named).expanduser()
        if not (path.is_file() and os.access(path, os.X_OK)):
            raise BadInput(f"{path}: not an executable vllm")
    else:
        found = shutil.which("vllm", path=vllm_env(env)["PATH"])
        if not found:
            raise BadInput("no `vllm` executable found: install vLLM in its own environment and pass --vllm-bin "
                           "(or set HARNESS_VLLM), or use --runtime container")
        path = Path(found)
    if _inside(path, Path(sys.prefix)):
        raise BadInput(f"{path} is inside the harness environment; vLLM must run from its own environment")
    return path


def vllm_env(base: Mapping[str, str]) -> dict[str, str]:
    """The environment of a vLLM process: the caller's, without the harness environment's
    Python settings and bin folder, with run-time adapter loading switched on."""
    env = {k: v for k, v in base.items() if k not in _HARNESS_ENV_VARS}
    drop = {str(p.resolve()) for p in harness_bin_dirs()}
    path = [p for p in base.get("PATH", os.defpath).split(os.pathsep) if p and str(Path(p).resolve()) not in drop]
    env["PATH"] = os.pathsep.join(path)
    env.update(RUNTIME_LORA_ENV)
    return env


def process_command(spec: ServeSpec, vllm_bin: Path) -> list[str]:
    return [str(vllm_bin), "serve", *server_args(spec)]


def container_mounts(spec: ServeSpec) -> list[str]:
    """Host folders the container sees at the same path: each adapter's parent folder (so
    later checkpoints beside it can be loaded at run time) and a local base model."""
    folders = {str(Path(a.path).resolve().parent) for a in spec.adapters}
    base = Path(spec.base).expanduser()
    if base.exists():
        folders.add(str(base.resolve()))
    return sorted(folders)


def container_spec(spec: ServeSpec, image: str = DEFAULT_IMAGE, env: Mapping[str, str] | None = None) -> dict:
    """Keyword arguments for docker's `containers.run`, GPUs as a plain dict (turned into a
    DeviceRequest when started). The server listens on 8000 inside, published on the
    spec's host and port."""
    env = os.environ if env is None else env
    environment = dict(RUNTIME_LORA_ENV)
    for key in ("HF_TOKEN", "HUGGING_FACE_HUB_TOKEN"):
        if env.get(key):
            environment[key] = env[key]
    volumes = {path: {"bind": path, "mode": "ro"} for path in container_mounts(spec)}
    hf_cache = Path(env.get("HF_HOME") or Path(env.get("HOME", "~")).expanduser() / ".cache" / "huggingface")
    volumes[str(hf_cache)] = {"bind": "/root/.cache/huggingface", "mode": "rw"}
    return {
        "image": image,
        "command": server_args(spec, host="0.0.0.0", port=CONTAINER_PORT, model_flag=True),
        "environment": environment,
        "ports": {f"{CONTAINER_PORT}/tcp": (spec.host, spec.port)},
        "volumes": volumes,
        "device_requests": [{"count": spec.gpus, "capabilities": [["gpu"]]}],
        "ipc_mode": "host",
        "name": f"harness-vllm-{spec.port}",
        "labels": {"harness.serve": str(spec.port)},
        "detach": True,
    }


def start_container(kwargs: dict) -> str:
    """Start the container described by `container_spec`; return its id."""
    # docker takes 0.1 s to import: only when a container starts
    import docker
    from docker.types import DeviceRequest

    run = dict(kwargs)
    run["device_requests"] = [DeviceRequest(**d) for d in kwargs["device_requests"]]
    try:
        client = docker.from_env(timeout=600)
        container = client.containers.run(**run)
    except docker.errors.DockerException as exc:
        raise InfraError(InfraKind.provider, f"starting {kwargs['image']}: {exc}") from None
    return container.id


def container_handle(container_id: str):
    # docker takes 0.1 s to import: only when a container is handled
    import docker

    return docker.from_env().containers.get(container_id)
