"""The agents by name: a profile's `agent` field picks the profile model that reads it and
the host-side kit its trials are made by. The runner asks here and names no agent.

To add an agent: a module or folder under agents/ with a profile (a subclass of
base.AgentProfile whose `agent` is its name), an Agent and an AgentHost; its entry below;
a profile file in the top-level agents/ folder."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, NamedTuple

from pydantic import ValidationError

from ..errors import BadInput, invalid
from ..paths import read_bundled_toml
from .aider.agent import AiderAgents
from .aider.profile import AiderProfile
from .base import AgentHost, AgentProfile
from .direct import DirectAgents, DirectProfile

DEFAULT_PROFILE = "aider-whole"
# Profiles written before there was a second agent name none: they are Aider's.
_UNNAMED = "aider"


class Registered(NamedTuple):
    profile: type[AgentProfile]
    host: type[AgentHost]


AGENTS: dict[str, Registered] = {
    "aider": Registered(AiderProfile, AiderAgents),
    "direct": Registered(DirectProfile, DirectAgents),
}


def profile_from(data: Any, source: str) -> AgentProfile:
    """A profile's data as the profile model of the agent it names; `source` says where it
    was read, for the one line of bad input."""
    name = data.get("agent", _UNNAMED) if isinstance(data, dict) else None
    entry = AGENTS.get(name) if isinstance(name, str) else None
    if entry is None:
        raise BadInput(f"{source}: agent: unknown agent {name!r}; choose one of {', '.join(sorted(AGENTS))}")
    try:
        return entry.profile.model_validate(data)
    except ValidationError as exc:
        raise invalid(exc, source) from None


def load_profile(name_or_path: str) -> AgentProfile:
    """A bundled profile by name (`agents/<name>.toml`) or a profile file by path."""
    path, data = read_bundled_toml("agents", name_or_path, "agent profile")
    return profile_from(data, f"{path}: not a valid agent profile")


def read_profile(path: Path) -> AgentProfile:
    """The profile a run folder keeps (store.PROFILE_FILE), exactly as the run used it."""
    try:
        data = json.loads(path.read_bytes())
    except (OSError, ValueError) as exc:
        raise BadInput(f"{path}: missing or unreadable ({exc.__class__.__name__}); this run cannot be resumed") from None
    return profile_from(data, f"{path}: this run cannot be resumed")


def prepare(profile: AgentProfile) -> None:
    """What a host needs before any trial of the profile (Aider: its environment)."""
    AGENTS[profile.agent].host.prepare(profile)


def agent_host(profile: AgentProfile, log_path: Path | None = None, limiter: Any = None) -> AgentHost:
    """What one host keeps for the trials of `profile` (see base.AgentHost)."""
    return AGENTS[profile.agent].host(profile, log_path, limiter)
