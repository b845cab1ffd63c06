"""Typed errors. The split that matters: bad input (exit 2, one line), infrastructure
failures (retried, never counted against a model), and everything a model did wrong, which
is not an exception at all but an outcome recorded on the trial."""

from __future__ import annotations

from enum import Enum


class HarnessError(Exception):
    """Base of every error the harness raises on purpose."""


class BadInput(HarnessError):
    """The user gave something unusable. The CLI prints the message on one line, exit 2."""


class InfraKind(str, Enum):
    sandbox = "sandbox"          # engine down, container died, image missing
    provider = "provider"        # model endpoint: timeout, 429, 5xx, connection refused
    agent = "agent"              # the agent process crashed for reasons of its own
    disk = "disk"                # no space, unwritable run folder
    interrupted = "interrupted"  # the user stopped the run
    # A bug of the harness itself (an exception nobody raised on purpose): not the agent's
    # fault, and rerunning the trial mostly reruns the bug, so `--resume` leaves it unless
    # asked (--retry-harness-errors).
    harness = "harness"


class InfraError(HarnessError):
    """Something outside the model failed. A trial that ends in one is not done."""

    def __init__(self, kind: InfraKind, message: str, attempts: int = 1):
        super().__init__(message)
        self.kind = kind
        self.attempts = attempts  # tries made before giving up, the failing one included

    def __str__(self) -> str:
        return f"{self.kind.value}: {super().__str__()}"


class SandboxUnavailable(InfraError):
    def __init__(self, message: str):
        super().__init__(InfraKind.sandbox, message)


class ProviderFailure(InfraError):
    """The model endpoint kept failing through the agent's retries."""

    def __init__(self, message: str, attempts: int):
        super().__init__(InfraKind.provider, message, attempts)
