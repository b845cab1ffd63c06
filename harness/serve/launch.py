"""Starting and stopping servers, for both backends: run the process (detached, logging to
a file beside its endpoint record) or the container, wait on /health, write the record;
stop it again; add and drop adapters on a running server."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Callable, Literal

from pydantic import BaseModel, ConfigDict, Field

from ..adapter_card import AdapterCard, same_base, find_card, verify_card
from ..errors import BadInput, InfraError
from . import protocol, vllm
from .endpoint import EndpointRecord, load_records, log_path, remove_record, save_record
from .spec import ServedAdapter, ServerOptions, ServeSpec, server_args

Backend = Literal["vllm", "local"]
Runtime = Literal["auto", "process", "container"]
LOCAL_MODULE = "harness.serve.local_server"


class LaunchOptions(BaseModel):
    model_config = ConfigDict(extra="forbid")

    backend: Backend = "vllm"
    runtime: Runtime = "auto"  # vLLM: its own executable, else its container image
    device: str = "auto"  # local backend: cpu, cuda, cuda:N or auto
    vllm_bin: str | None = None
    image: str = vllm.DEFAULT_IMAGE
    health_timeout_s: float = Field(900.0, gt=0)


class ServeSettings(ServerOptions, LaunchOptions):
    """Everything a server is started with but the models it serves: `harness serve`'s
    options, and the loop's serve table."""

    def spec(self, base: str, adapters: list[str]) -> ServeSpec:
        return spec_from_cards(base, adapters, **self.model_dump(include=set(ServerOptions.model_fields)))

    def launch_options(self) -> LaunchOptions:
        return LaunchOptions(**self.model_dump(include=set(LaunchOptions.model_fields)))


def spec_from_cards(base: str, names: list[str], **fields) -> ServeSpec:
    """A ServeSpec for `base` and the adapters named by cards, each verified (hash, rank,
    base) before it is served."""
    adapters = []
    for name in names:
        card, card_file = find_card(name)
        adapter_dir = verify_card(card, card_file)
        if not same_base(base, card.base_model, adapter_dir):
            raise BadInput(f"adapter {name} was made for base {card.base_model!r}, not {base!r}")
        adapters.append(ServedAdapter(name=name, path=str(adapter_dir), rank=card.rank))
    return ServeSpec(base=base, adapters=adapters, **fields)


# ---- processes -----------------------------------------------------------------------------


def port_free(host: str, port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind((host if host not in ("", "0.0.0.0") else "0.0.0.0", port))
            return True
        except OSError:
            return False


def pid_alive(pid: int) -> bool:
    try:  # reap it if it is our own child, so a dead child does not linger as a zombie
        if os.waitpid(pid, os.WNOHANG)[0] == pid:
            return False
    except ChildProcessError:
        pass
    try:
        with open(f"/proc/{pid}/stat") as fh:
            if fh.read().rsplit(")", 1)[1].split()[0] == "Z":
                return False
    except OSError:
        pass
    try:
        os.kill(pid, 0)
        return True
    except ProcessLookupError:
        return False
    except PermissionError:
        return True


def _is_our_server(pid: int, port: int) -> bool:
    """Guard against a recycled pid: the process must be a server on this port."""
    try:
        argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except OSError:
        return pid_alive(pid)
    return any(a == b"--port" and i + 1 < len(argv) and argv[i + 1] == str(port).encode() for i, a in enumerate(argv))


def _file_tail(path: Path, lines: int = 40) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return ""


def start_process(argv: list[str], env: dict[str, str], log_file: Path) -> subprocess.Popen:
    """Run detached from the harness (its own session), so it outlives `harness serve`."""
    with open(log_file, "ab") as out:
        return subprocess.Popen(argv, env=env, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
                                start_new_session=True)


def local_command(spec: ServeSpec, device: str) -> list[str]:
    return [sys.executable, "-m", LOCAL_MODULE, *server_args(spec), "--device", device]


# ---- start / stop ------------------------------------------------------------------------


def start_server(spec: ServeSpec, options: LaunchOptions, log: Callable[[str], None] = lambda _m: None) -> EndpointRecord:
    for old in load_records():
        if old.port == spec.port:
            if server_alive(old):
                raise BadInput(f"a server is already recorded on port {spec.port}; `harness serve stop --port {spec.port}` first")
            remove_record(old.port)
    if not port_free(spec.host, spec.port):
        raise BadInput(f"port {spec.port} on {spec.host} is in use")
    runtime, no_executable = options.runtime, ""
    if options.backend == "local":
        if runtime == "container":
            raise BadInput("the local backend runs as a process; --runtime container is for vLLM")
        runtime = "process"
        command = local_command(spec, options.device)
        env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    elif runtime in ("auto", "process"):
        try:
            command = vllm.process_command(spec, vllm.find_vllm(options.vllm_bin))
            env, runtime = vllm.vllm_env(os.environ), "process"
        except BadInput as exc:
            if runtime == "process":
                raise
            runtime, no_executable = "container", str(exc)
    api_base = protocol.api_base(spec.host, spec.port)
    record = EndpointRecord(
        api_base=api_base, backend=options.backend, runtime=runtime, base_model=spec.base,
        served_name=spec.base_name, adapters={a.name: a.path for a in spec.adapters},
        max_lora_rank=spec.lora_rank_limit(), port=spec.port,
    )
    if runtime == "container":
        kwargs = vllm.container_spec(spec, options.image)
        log(f"starting container {options.image} for {spec.base} on port {spec.port}")
        try:
            record.container_id = vllm.start_container(kwargs)
        except InfraError as exc:
            if no_executable:  # auto: neither way to run vLLM is available here
                raise BadInput(f"{no_executable}; and the container fallback failed: {exc}") from None
            raise
        record.mounts = list(kwargs["volumes"])
        record.command = ["docker", "run", options.image, *kwargs["command"]]
    else:
        logfile = log_path(spec.port)
        logfile.write_text("")
        log(f"starting {' '.join(command[:3])} ... for {spec.base} on port {spec.port}; log: {logfile}")
        record.pid = start_process(command, env, logfile).pid
        record.log_path, record.command = str(logfile), command
    save_record(record)  # before the wait, so `harness serve stop` can end a server stuck starting
    try:
        seconds = protocol.wait_healthy(api_base, timeout_s=options.health_timeout_s,
                                        alive=lambda: server_alive(record), log_tail=lambda: server_log_tail(record),
                                        what=f"{options.backend} server")
    except BaseException:
        stop_server(record)
        raise
    log(f"healthy after {seconds:.1f} s: {api_base}")
    return record


def server_alive(record: EndpointRecord) -> bool:
    if record.container_id:
        try:
            handle = vllm.container_handle(record.container_id)
            return handle.status in ("created", "running")
        except Exception:
            return False
    return record.pid is not None and pid_alive(record.pid) and _is_our_server(record.pid, record.port)


def server_log_tail(record: EndpointRecord, lines: int = 40) -> str:
    if record.container_id:
        try:
            return vllm.container_handle(record.container_id).logs(tail=lines).decode(errors="replace")
        except Exception:
            return ""
    return _file_tail(Path(record.log_path), lines) if record.log_path else ""


def stop_server(record: EndpointRecord, timeout_s: float = 30.0) -> bool:
    """End the server and drop its record; False when it had already gone."""
    was_alive = server_alive(record)
    if record.container_id and was_alive:
        handle = vllm.container_handle(record.container_id)
        handle.stop(timeout=int(timeout_s))
        handle.remove(force=True)
    elif record.pid is not None and was_alive:
        os.killpg(record.pid, signal.SIGTERM)  # its own session: the server and its workers
        deadline = time.monotonic() + timeout_s
        while pid_alive(record.pid) and time.monotonic() < deadline:
            time.sleep(0.1)
        if pid_alive(record.pid):
            os.killpg(record.pid, signal.SIGKILL)
    remove_record(record.port)
    return was_alive


# ---- adapters on a running server ---------------------------------------------------------


def load_card_on_server(card: AdapterCard, card_file: Path, record: EndpointRecord) -> str:
    adapter_dir = verify_card(card, card_file)
    if not same_base(record.base_model, card.base_model, adapter_dir):
        raise BadInput(f"adapter {card.name} was made for base {card.base_model!r}; the server on port "
                       f"{record.port} serves {record.base_model!r}")
    if card.rank > record.max_lora_rank:
        raise BadInput(f"adapter {card.name} has rank {card.rank}, above the server's maximum LoRA rank "
                       f"{record.max_lora_rank}; restart it with --max-lora-rank {card.rank}")
    if record.runtime == "container" and not any(str(adapter_dir).startswith(m.rstrip("/") + "/") for m in record.mounts):
        raise BadInput(f"{adapter_dir} is not visible inside the vLLM container (mounted: {', '.join(record.mounts)}); "
                       "restart the server with this adapter")
    message = protocol.load_adapter(record.api_base, card.name, str(adapter_dir))
    record.adapters[card.name] = str(adapter_dir)
    save_record(record)
    return message


def unload_from_server(name: str, record: EndpointRecord) -> str:
    message = protocol.unload_adapter(record.api_base, name)
    record.adapters.pop(name, None)
    save_record(record)
    return message

