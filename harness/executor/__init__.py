"""Where the work runs: one seam for `harness run`, suite validation, curriculum validation
and the verifier's rewards. `local` (the default) is worker threads of this process;
`ray` is actors on a Ray cluster, each node with its own sandbox and Aider environment
(harness/executor/ray_cluster.py; Ray is imported only when asked for).

Chosen by `--executor ray [--ray-address ADDR]` or the environment (HARNESS_EXECUTOR,
HARNESS_RAY_ADDRESS); an option given wins over the environment."""

from __future__ import annotations

import os
from contextlib import contextmanager
from typing import Callable, Iterator, Literal

from pydantic import Field, ValidationError, model_validator

from ..errors import BadInput, invalid
from ..records import Record
from ..sandbox import Sandbox, SandboxLimits, make_sandbox
from .base import Executor, Host, SandboxFacts, Slot
from .local import LocalExecutor

KINDS = ("local", "ray")
ENV_KIND = "HARNESS_EXECUTOR"
ENV_ADDRESS = "HARNESS_RAY_ADDRESS"
ENV_SLOT_CPUS = "HARNESS_RAY_SLOT_CPUS"


class ExecutorSettings(Record):
    """Where units run. None of a config's `executor` means: as the environment says."""

    kind: Literal["local", "ray"] = "local"
    address: str | None = Field(None, description="the Ray cluster (host:port, ray://host:port, auto); "
                                                  "default: RAY_ADDRESS, else the cluster on this machine")
    slot_cpus: float = Field(1.0, gt=0, description="CPUs a Ray slot reserves: its sandbox's share")

    @model_validator(mode="after")
    def _address_for_ray(self) -> "ExecutorSettings":
        if self.address is not None and self.kind != "ray":
            raise ValueError("a Ray address needs the ray executor")
        return self

    @classmethod
    def given(cls, kind: str | None = None, address: str | None = None) -> "ExecutorSettings | None":
        """From command-line options; None when neither is given (the environment decides)."""
        if kind is None and address is None:
            return None
        if kind is None:
            raise BadInput("--ray-address needs --executor ray")
        return _settings(kind, address, "--executor")

    @classmethod
    def from_env(cls) -> "ExecutorSettings":
        kind = os.environ.get(ENV_KIND) or "local"
        settings = _settings(kind, os.environ.get(ENV_ADDRESS) or None, ENV_KIND)
        if os.environ.get(ENV_SLOT_CPUS):
            try:
                settings = cls(**{**settings.model_dump(), "slot_cpus": float(os.environ[ENV_SLOT_CPUS])})
            except (ValueError, ValidationError):
                raise BadInput(f"{ENV_SLOT_CPUS}={os.environ[ENV_SLOT_CPUS]!r} is not a positive number "
                               "of CPUs") from None
        return settings


def _settings(kind: str, address: str | None, source: str) -> ExecutorSettings:
    if kind not in KINDS:
        raise BadInput(f"{source} {kind!r}: choose one of {', '.join(KINDS)}")
    if address is not None and kind != "ray":
        raise BadInput("--ray-address needs --executor ray")
    try:
        return ExecutorSettings(kind=kind, address=address)
    except ValidationError as exc:
        raise invalid(exc) from None


def make_executor(settings: ExecutorSettings | None, *, sandbox: str | Sandbox = "auto",
                  limits: SandboxLimits | None = None, workers: int | None = None, most: int | None = None,
                  share: int = 1, notice: Callable[[str], None] | None = None) -> Executor:
    """An executor with `workers` slots (local: default the cores; ray: default every slot
    the cluster has, divided by `share` among processes that split one cluster), and never
    more than `most` (the units there are to run)."""
    settings = settings or ExecutorSettings.from_env()
    if settings.kind == "local":
        count = workers or os.cpu_count() or 1
        return LocalExecutor(make_sandbox(sandbox, limits, notice=notice), max(1, min(count, most or count)))
    if not isinstance(sandbox, str):
        raise BadInput("--executor ray: each node makes its own sandbox, give its kind (docker, local, auto)")
    # Ray is the ray extra's, and seconds to import: only for --executor ray.
    from .ray_cluster import RayExecutor

    if most:
        workers = min(workers or most, most)
    return RayExecutor(settings, sandbox=sandbox, limits=limits, workers=workers, share=share, notice=notice)


@contextmanager
def using(where: "Executor | Sandbox | str", workers: int | None = None) -> Iterator[Executor]:
    """`where` as an executor: one given is used as it is (and left open); a sandbox, or a
    sandbox kind, gets a local executor of `workers` threads for the block."""
    if isinstance(where, Executor):
        yield where
        return
    with make_executor(ExecutorSettings(kind="local"), sandbox=where, workers=workers) as executor:
        yield executor


__all__ = ["Executor", "ExecutorSettings", "Host", "KINDS", "LocalExecutor", "SandboxFacts", "Slot", "make_executor",
           "using"]
