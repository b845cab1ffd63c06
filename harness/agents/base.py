"""What a trial asks of an agent, whichever agent it is.

A run names one agent profile (`--agent NAME`, `agents/<NAME>.toml`); the profile's `agent`
field says which agent reads it (agents/registry.py). A trial then holds one `Agent`: it
starts a chat for the task's workspace (`AgentChat`), sends one message per round and gets
back an `AgentRound` (the files the agent edited in the workspace, every model call, the
counters and usage, the conversation after the round), and closes the chat. What a host
keeps for the trials of one profile between them (Aider's warm driver processes) is that
agent's `AgentHost`.

The agent edits the workspace on the host's side; the harness never trusts it: every file
name it writes goes through `file_names.refusal`, and the trial's tests, build files and
test main are restored from the task before each test run."""

from __future__ import annotations

from abc import ABC, abstractmethod
from pathlib import Path
from typing import Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field

from ..hashing import sha256_json
from ..records import AgentCounters, ChatState, ModelCall, ProviderError, Sampling


class ProfileTimeouts(BaseModel):
    model_config = ConfigDict(extra="forbid")

    request_s: float = Field(600.0, gt=0, description="one model request")
    provider_retry_s: float = Field(60.0, ge=0, description="the agent's backoff budget for provider errors")
    round_s: float = Field(1800.0, gt=0, description="one round of the agent, all its requests")
    start_s: float = Field(300.0, gt=0, description="starting a chat (Aider: a driver process importing Aider)")


class ProfileTests(BaseModel):
    """How a trial's tests run, where a profile reproduces another harness's way."""

    model_config = ConfigDict(extra="forbid")

    time_limit_s: float | None = Field(None, gt=0, description="one limit for configure, build and tests "
                                                                "together; none: the sandbox's build and run limits")


class AgentProfile(BaseModel):
    """What every agent's profile says: its name, which agent reads it, the edit format its
    answers come in (what `gold` and `mutant` answer in), the prompt contract a run takes
    when none is given, its timeouts and how its trials' tests run. Each agent adds its own
    settings in a subclass (registry.py maps the `agent` field to it)."""

    model_config = ConfigDict(extra="forbid")

    schema_version: Literal[1] = 1
    name: str
    description: str = ""
    agent: str
    edit_format: Literal["whole", "diff"] = "whole"
    contract: str | None = None  # the prompt contract a run uses when --contract is not given
    timeouts: ProfileTimeouts = Field(default_factory=ProfileTimeouts)
    tests: ProfileTests = Field(default_factory=ProfileTests)
    # Whether each round is a fresh prompt that can end in the model's own decision to submit
    # (AgentChat.submit_marker): what Self-RLEF's steps need (predict/rlef.py).
    fresh_prompts: ClassVar[bool] = False

    def names_from(self, chat_files: list[str]) -> str:
        """The folder the agent names a chat's files from, as a model sees and writes them
        ("" for the task's own folder): what the built-in models answer in."""
        return ""

    @property
    def agent_version(self) -> str:
        """The version of the agent's own software, recorded as a configuration's
        `aider_version` (the manifest's name from before a second agent); "none" for an
        agent that is the harness's own code, whose version the manifest records already."""
        return "none"

    @property
    def content_hash(self) -> str:
        """Everything that can change a result; the description cannot."""
        return sha256_json(self.model_dump(mode="json", exclude={"description"}))


class AgentChat(BaseModel):
    """What a chat needs: the workspace and its files, and the model endpoint."""

    workspace: Path
    files: list[str]            # the files the model edits (a repair task's solution files)
    # Files the model sees in the chat and may not edit (a test-writing task's solution).
    read_only: list[str] = Field(default_factory=list)
    ignore: list[str] = Field(default_factory=list)  # every other file: never offered to the chat
    model: str                  # the litellm model string
    api_base: str | None = None
    api_key: str | None = None
    sampling: Sampling = Field(default_factory=Sampling)
    system_text: str = ""
    log_file: Path | None = None
    chat_file: Path | None = None
    history: ChatState | None = None   # a conversation to continue (a resumed trial's earlier rounds)
    # An answer that is this marker alone submits the code as it is (AgentRound.submitted);
    # None: no answer submits. Only a profile with fresh_prompts is given one.
    submit_marker: str | None = None


class AgentRound(BaseModel):
    """One round as the agent reports it."""

    sent_at: str
    response: str | None = None
    edited_files: list[str] = Field(default_factory=list)
    calls: list[ModelCall] = Field(default_factory=list)
    counters: AgentCounters = Field(default_factory=AgentCounters)
    model_seconds: float = 0.0
    agent_seconds: float = 0.0
    provider_error: ProviderError | None = None  # the provider failed the round, after the agent's retries
    notes: list[str] = Field(default_factory=list)
    chat: ChatState | None = None   # the conversation after the round: where a resumed trial continues
    submitted: bool = False  # the answer was the chat's submit marker: nothing written, the code stands


class Agent(ABC):
    """One chat per task-trial. A failure of the agent itself (not of the model or its
    provider) is an InfraError of kind agent; the trial then ends as an infrastructure
    error and `close` is still called."""

    profile: AgentProfile

    @abstractmethod
    def start(self, chat: AgentChat) -> None:
        """Open the chat (with `chat.history`, continue that conversation)."""

    @abstractmethod
    def send(self, message: str) -> AgentRound:
        """One round: the message, the model's answers, the edits written to the workspace."""

    @abstractmethod
    def close(self) -> None:
        """End the chat; safe to call when it never started or failed."""


class AgentHost(ABC):
    """What one host keeps for the trials of one profile, made on the host's first trial of
    it and handed to every later one (the executor's `Host.keep`)."""

    def __init__(self, profile: Any, log_path: Path | None = None, limiter: Any = None):
        """`log_path`: where the agent's own processes log, on a host that writes the run
        folder; `limiter` (anything with `wait()`): a provider's rate limit, waited on before
        every model request."""
        self.profile = profile
        self.log_path = log_path
        self.limiter = limiter

    @staticmethod
    def prepare(profile: Any) -> None:
        """Once on every host before any trial of the run (Aider: its environment made)."""

    @abstractmethod
    def agent(self) -> Agent:
        """A fresh agent for one trial."""

    def kill_all(self) -> None:
        """Stop now (Ctrl-C): a trial waiting on the agent gets an error at once."""
        self.close()

    def close(self) -> None:
        """End with the host."""
