"""How commands read their options into config models: a comma-separated list, a default
taken from the model (so the model states it once and `--help` shows it), and the model
built from the options, a value it refuses being bad input that names its flag."""

from __future__ import annotations

from typing import Any, Mapping, TypeVar

import typer
from pydantic import BaseModel, ValidationError

from ..errors import invalid
from ..executor import ExecutorSettings

M = TypeVar("M", bound=BaseModel)


def comma_list(text: str | None) -> list[str] | None:
    """`a, b,,c` as ["a", "b", "c"]; None when the option was not given."""
    if text is None:
        return None
    return [part.strip() for part in text.split(",") if part.strip()]


def default(model: type[BaseModel], field: str) -> Any:
    """The model's default for `field`, the value an option left out stands for."""
    return model.model_fields[field].get_default(call_default_factory=True)


def from_options(model: type[M], options: Mapping[str, Any], flags: Mapping[str, str] = {}) -> M:
    """The config model of the options given; `flags` names the options not spelled as
    their field (field -> option)."""
    try:
        return model(**options)
    except ValidationError as exc:
        raise invalid(exc, flags=flags) from None


# Where the work runs, the same two options on every command that runs work in sandboxes.
EXECUTOR = typer.Option(None, "--executor", help="local (threads of this process, the default) or ray (a Ray "
                                                 "cluster's nodes); default: $HARNESS_EXECUTOR, else local")
RAY_ADDRESS = typer.Option(None, "--ray-address", help="with --executor ray: host:port, ray://host:port or auto "
                                                      "(default: $HARNESS_RAY_ADDRESS, $RAY_ADDRESS, else this machine's cluster)")


def executor_settings(kind: str | None, address: str | None) -> ExecutorSettings | None:
    """The two options as settings; None when neither is given (the environment decides)."""
    return ExecutorSettings.given(kind, address)
