"""An Aider profile (`agent = "aider"`): which Aider, its Coder's settings and the model
metadata it is given, on top of what every profile says (agents/base.py)."""

from __future__ import annotations

import posixpath

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from ...hashing import sha256_json
from ..base import AgentProfile, ProfileTests
from .env import DEFAULT_AIDER_VERSION


class ProfileModelSettings(BaseModel):
    """Metadata for models litellm does not know (local servers, `gold`): without a context
    window Aider would summarize the chat after 1k tokens. Hosted models keep litellm's."""

    model_config = ConfigDict(extra="forbid")

    # False leaves unknown models with Aider's defaults, as Aider's benchmark does.
    for_unknown_models: bool = True

    context_window: int = Field(32768, gt=0)
    max_output_tokens: int = Field(4096, gt=0)
    input_cost_per_token: float = Field(0.0, ge=0)
    output_cost_per_token: float = Field(0.0, ge=0)
    extra_params: dict[str, Any] = Field(default_factory=dict)  # passed to every completion call


class ProfileCoder(BaseModel):
    """Coder settings that differ between profiles; the rest is as Aider's benchmark has it."""

    model_config = ConfigDict(extra="forbid")

    auto_lint: bool = Field(False, description="lint every edited file with Aider's linter and send its complaints back")


class AiderProfile(AgentProfile):
    agent: Literal["aider"] = "aider"
    aider_version: str = DEFAULT_AIDER_VERSION
    coder: ProfileCoder = Field(default_factory=ProfileCoder)
    model: ProfileModelSettings = Field(default_factory=ProfileModelSettings)

    @property
    def agent_version(self) -> str:
        return self.aider_version

    def names_from(self, chat_files: list[str]) -> str:
        """Aider without git (as its benchmark runs it) names files from the common folder of
        the chat's files: a Java exercise's `BowlingGame.java` is in src/main/java, and a new
        class a model adds as `Frame.java` lands beside it."""
        folders = [posixpath.dirname(f) for f in chat_files]
        return posixpath.commonpath(folders) if folders else ""

    @property
    def content_hash(self) -> str:
        """Settings added after the first profiles count only when they differ from their
        defaults, so an unchanged profile keeps the hash its earlier runs recorded."""
        data = self.model_dump(mode="json", exclude={"description"})
        for key, default in _LATER_SETTINGS.items():
            if data[key] == default:
                del data[key]
        if data["model"]["for_unknown_models"]:
            del data["model"]["for_unknown_models"]
        return sha256_json(data)


_LATER_SETTINGS = {"contract": None, "coder": ProfileCoder().model_dump(mode="json"),
                   "tests": ProfileTests().model_dump(mode="json")}
