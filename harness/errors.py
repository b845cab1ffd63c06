"""Typed errors. The split that matters: bad input (exit 2, one line), infrastructure
failures (retried, never counted against a model), and everything a model did wrong, which
is not an exception at all but an outcome recorded on the trial."""

from __future__ import annotations

from enum import Enum
from typing import TYPE_CHECKING, Mapping

if TYPE_CHECKING:
    from pydantic import ValidationError


class HarnessError(Exception):
    """Base of every error the harness raises on purpose."""


class BadInput(HarnessError):
    """The user gave something unusable. The CLI prints the message on one line, exit 2."""


# Pydantic's words for the two complaints a user most often earns, said the harness's way.
_COMPLAINTS = {"missing": "missing", "extra_forbidden": "unknown setting"}


def invalid(exc: ValidationError, source: str | None = None, flags: Mapping[str, str] = {}) -> BadInput:
    """A pydantic ValidationError as the one line of bad input it stands for: its first
    complaint, and where. Read from a file (`source`: a path, `path:line`), the field's
    dotted path in it; built from command-line options (no source), the field's flag,
    which is the field's name with dashes unless `flags` names it."""
    first = exc.errors()[0]
    loc = [str(part) for part in first["loc"]]
    msg = first["msg"].removeprefix("Value error, ")
    what = _COMPLAINTS.get(first["type"], msg[:1].lower() + msg[1:])
    if source is None:
        return BadInput(f"--{flags.get(loc[0], loc[0]).replace('_', '-')}: {what}" if loc else what)
    return BadInput(f"{source}: {'.'.join(loc) or 'top level'}: {what}")


class UnsafeName(HarnessError):
    """A file name the one path check (file_names.py) refuses reached code that writes
    files. Every entry point refuses such a name as its answer's failure first, so this is
    a bug of the caller; nothing was written."""


class InfraKind(str, Enum):
    sandbox = "sandbox"          # engine down, container died, image missing
    provider = "provider"        # model endpoint: timeout, 429, 5xx, connection refused
    agent = "agent"              # the agent process crashed for reasons of its own
    disk = "disk"                # no space, unwritable run folder
    interrupted = "interrupted"  # the user stopped the run
    node = "node"                # the cluster node (or its worker process) running the work died
    # The task's own files cannot be used (one read as text is not UTF-8): no trial of it
    # ran, and none will until the task is fixed, which makes it another task (a new run).
    suite = "suite"
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

    def __reduce__(self):
        # An exception pickles as its class called with its args, which these do not take;
        # a unit's error crosses processes on a cluster.
        return _restore, (type(self), self.args, self.kind, self.attempts)


def _restore(cls: type[InfraError], args: tuple, kind: InfraKind, attempts: int) -> InfraError:
    exc: InfraError = Exception.__new__(cls)
    exc.args, exc.kind, exc.attempts = args, kind, attempts
    return exc


class SandboxUnavailable(InfraError):
    def __init__(self, message: str):
        super().__init__(InfraKind.sandbox, message)


class ProviderFailure(InfraError):
    """The model endpoint kept failing through the agent's retries."""

    def __init__(self, message: str, attempts: int):
        super().__init__(InfraKind.provider, message, attempts)


class SuiteBroken(InfraError):
    """A task whose own files cannot start a test run (a Python exercise that names no test
    file): the suite's error, recorded against the task in every trial, never the model's."""

    def __init__(self, message: str):
        super().__init__(InfraKind.suite, message)
