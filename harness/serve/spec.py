"""What to serve: a base model and LoRA adapters, and the `vllm serve` arguments that say
so. The harness's local server accepts the same arguments, so one builder serves both
backends and the local server is a drop-in for `vllm serve` in tests."""

from __future__ import annotations

import json
from typing import Iterable

from pydantic import BaseModel, ConfigDict, Field

from ..errors import BadInput

# The ranks vLLM's --max-lora-rank accepts (vllm/config/lora.py, MaxLoRARanks).
VLLM_LORA_RANKS = (1, 8, 16, 32, 64, 128, 256, 320, 512)


class ServedAdapter(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str
    path: str
    rank: int


class ServerOptions(BaseModel):
    """How a server presents what it serves: its names, address, GPUs and adapter slots."""

    model_config = ConfigDict(extra="forbid")

    served_name: str | None = Field(None, description="the base model's name on the endpoint (default: base)")
    host: str = "127.0.0.1"
    port: int = 8000
    gpus: int = Field(1, ge=1, description="tensor-parallel size (vLLM)")
    max_lora_rank: int | None = Field(None, description="default: the largest served rank, rounded up")
    max_loras: int | None = Field(None, description="adapters in one batch (default: all served, at least 1)")
    max_cpu_loras: int | None = Field(None, description="adapters cached in CPU memory (default: max_loras)")


class ServeSpec(ServerOptions):
    """What one server serves, and how."""

    base: str = Field(description="hub id or local folder of the base model")
    adapters: list[ServedAdapter] = Field(default_factory=list)

    @property
    def base_name(self) -> str:
        return self.served_name or self.base

    def lora_rank_limit(self) -> int:
        return max_lora_rank([a.rank for a in self.adapters], self.max_lora_rank)

    def lora_slots(self) -> tuple[int, int]:
        loras = self.max_loras or max(1, len(self.adapters))
        cpu = self.max_cpu_loras or loras
        if cpu < loras:
            raise BadInput(f"--max-cpu-loras {cpu} is below --max-loras {loras}; vLLM refuses that")
        return loras, cpu


def max_lora_rank(ranks: Iterable[int], requested: int | None = None) -> int:
    """The smallest rank vLLM accepts that covers every served adapter (and `requested`,
    which reserves room for adapters loaded later)."""
    ranks = list(ranks)
    need = max(ranks + ([requested] if requested else []), default=VLLM_LORA_RANKS[1])
    if requested is not None and ranks and max(ranks) > requested:
        raise BadInput(f"an adapter has rank {max(ranks)}, above the requested --max-lora-rank {requested}")
    for size in VLLM_LORA_RANKS:
        if size >= need:
            return size
    raise BadInput(f"LoRA rank {need} is above the largest rank vLLM serves ({VLLM_LORA_RANKS[-1]})")


def server_args(spec: ServeSpec, *, host: str | None = None, port: int | None = None, model_flag: bool = False) -> list[str]:
    """The arguments after `vllm serve`: the base model, then the flags. `model_flag`
    names the base with --model instead (what the container image's entrypoint takes in
    every version); `host` and `port` override the spec's (inside a container)."""
    loras, cpu_loras = spec.lora_slots()
    args = ["--model", spec.base] if model_flag else [spec.base]
    args += [
        "--served-model-name", spec.base_name,
        "--host", host or spec.host,
        "--port", str(port or spec.port),
        "--tensor-parallel-size", str(spec.gpus),
        "--enable-lora",
        "--max-lora-rank", str(spec.lora_rank_limit()),
        "--max-loras", str(loras),
        "--max-cpu-loras", str(cpu_loras),
    ]
    if spec.adapters:
        args.append("--lora-modules")
        args += [
            json.dumps({"name": a.name, "path": a.path, "base_model_name": spec.base_name}, separators=(",", ":"))
            for a in spec.adapters
        ]
    return args
