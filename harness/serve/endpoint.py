"""Endpoint records: one JSON file per running server under `<state_dir>/serve/`, naming its
URL, backend, base model, adapters and the process or container that runs it. They are
how `local/<adapter>` finds its server with no further flags, and how `harness serve
status | stop` and `harness adapters load | unload` find theirs."""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ..errors import BadInput, InfraError
from ..fs import write_record
from ..paths import state_dir
from . import protocol

SCHEMA_VERSION = 1


class EndpointRecord(BaseModel):
    model_config = ConfigDict(extra="forbid")

    schema_version: int = SCHEMA_VERSION
    api_base: str
    backend: Literal["vllm", "local"]
    runtime: Literal["process", "container"]
    base_model: str
    served_name: str
    adapters: dict[str, str] = Field(default_factory=dict, description="served name -> adapter folder")
    max_lora_rank: int
    port: int
    pid: int | None = None
    container_id: str | None = None
    log_path: str | None = None
    mounts: list[str] = Field(default_factory=list, description="host folders a container sees at the same path")
    command: list[str] = Field(default_factory=list)
    started_at: str = Field(default_factory=lambda: datetime.now(timezone.utc).isoformat(timespec="seconds"))


def serve_dir() -> Path:
    path = state_dir() / "serve"
    path.mkdir(parents=True, exist_ok=True)
    return path


def record_path(port: int) -> Path:
    return serve_dir() / f"{port}.json"


def log_path(port: int) -> Path:
    return serve_dir() / f"{port}.log"


def save_record(record: EndpointRecord) -> Path:
    target = record_path(record.port)
    write_record(target, record)
    return target


def remove_record(port: int) -> None:
    record_path(port).unlink(missing_ok=True)


def load_records() -> list[EndpointRecord]:
    records = []
    for f in sorted(serve_dir().glob("*.json")):
        try:
            records.append(EndpointRecord.model_validate_json(f.read_text()))
        except (ValidationError, OSError):
            raise BadInput(f"{f}: not an endpoint record this harness reads; remove it") from None
    return records


def find_record(port: int | None = None) -> EndpointRecord:
    """The one server (or the one on `port`) the user means."""
    records = load_records()
    if port is not None:
        for r in records:
            if r.port == port:
                return r
        raise BadInput(f"no server recorded on port {port} (see `harness serve status`)")
    if not records:
        raise BadInput("no server is running (start one with `harness serve --base MODEL`)")
    if len(records) > 1:
        raise BadInput(f"{len(records)} servers are recorded (ports {', '.join(str(r.port) for r in records)}); pass --port")
    return records[0]


def resolve_adapter_endpoint(name: str) -> tuple[str, str]:
    """`local/<name>` -> (`openai/<name>`, api_base) of a running server that serves the
    adapter (or base model) `name`. The server's own /v1/models is the truth, so an
    adapter loaded by any client counts and a dead server does not."""
    unreachable = []
    for record in load_records():
        try:
            ids = {m["id"] for m in protocol.served_models(record.api_base, timeout_s=5.0)}
        except InfraError:
            unreachable.append(str(record.port))
            continue
        if name in ids:
            return f"openai/{name}", record.api_base
    stale = f" (recorded servers not answering on ports {', '.join(unreachable)})" if unreachable else ""
    raise BadInput(f"no running server serves adapter {name!r}{stale}; "
                   f"start one with `harness serve --base BASE --adapter {name}` or `harness adapters load {name}`")
