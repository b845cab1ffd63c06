"""Sandbox backends and the choice between them."""

from __future__ import annotations

import sys
from typing import Literal

from ..errors import BadInput, SandboxUnavailable
from .base import ExecResult, Role, Sandbox, SandboxLimits, SandboxSession
from .docker import DockerSandbox
from .local import LocalSandbox

SandboxKind = Literal["auto", "docker", "local"]
KINDS = ("auto", "docker", "local")


def make_sandbox(kind: str | Sandbox = "auto", limits: SandboxLimits | None = None, notice=None) -> Sandbox:
    """`docker` and `local` are what they say; `auto` takes Docker when an engine and the
    image are there and otherwise the local backend, saying so. A sandbox already made is
    taken as it is, so an API may be given either."""
    if not isinstance(kind, str):
        return kind
    if kind not in KINDS:
        raise BadInput(f"unknown sandbox {kind!r}: choose one of {', '.join(KINDS)}")
    if kind in ("docker", "auto"):
        try:
            return DockerSandbox(limits)
        except SandboxUnavailable as exc:
            if kind == "docker":
                raise
            reason = str(exc)
    sandbox = LocalSandbox(limits)
    if kind == "local":
        return sandbox
    (notice or (lambda m: print(m, file=sys.stderr)))(
        f"notice: Docker sandbox unavailable ({reason}); using the local backend — {sandbox.isolation}"
    )
    return sandbox


__all__ = ["ExecResult", "Role", "Sandbox", "SandboxLimits", "SandboxSession", "make_sandbox", "KINDS"]
