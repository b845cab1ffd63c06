"""What `harness run` is asked to do (RunConfig), and which of it a resumed run takes from
its manifest instead."""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from ..agents.registry import DEFAULT_PROFILE
from ..executor import ExecutorSettings
from ..kinds import DEFAULT_KIND
from ..records import FeedbackMode, Sampling, TestWritingSettings, TrialKindName


class RunConfig(BaseModel):
    """Everything `harness run` is asked to do. With `resume`, the run's own manifest
    decides what runs; only where and how fast may change."""

    model_config = ConfigDict(extra="forbid")

    suite: str = "fixed26"
    kind: TrialKindName = DEFAULT_KIND   # what each trial asks for (harness/kinds/)
    tests: TestWritingSettings = Field(default_factory=TestWritingSettings)  # kind "tests": how suites are scored
    # MODEL, or MODEL::CONTRACT for a configuration with a prompt contract of its own (a
    # prompted control: the same model with another prompt).
    models: list[str] = Field(default_factory=list)
    models_file: Path | None = None  # litellm's model_list: endpoints and key variables by model_name
    api_base: str | None = None      # the endpoint of the run's one model (each names its own: MODEL@URL)
    tasks: list[str] | None = None
    trials: int = Field(4, ge=1)
    rounds: int = Field(2, ge=1, le=10)
    feedback: FeedbackMode = "real"
    workers: int | None = Field(None, ge=1)
    agent: str = DEFAULT_PROFILE
    contract: str | None = None  # default: the profile's own contract, else DEFAULT_CONTRACT
    aider_checkout: Path | None = None  # default: $HARNESS_AIDER_CHECKOUT; for contracts that read Aider's prompts
    sampling: Sampling = Field(default_factory=Sampling)
    sandbox: str = "auto"
    runs_dir: Path = Path("runs")
    run_id: str | None = None
    resume: str | None = None
    retry_harness_errors: bool = False  # with resume: rerun trials a harness bug ended too
    dry_run: bool = False
    command_line: list[str] = Field(default_factory=list)
    executor: ExecutorSettings | None = None  # where the trials run; None: as HARNESS_EXECUTOR says (local)
    requests_per_minute: float | None = Field(None, gt=0)  # a provider's rate limit, shared by every worker
    preregistered: Path | None = None  # a bar's registration file (`harness preregister`), recorded before any trial


# Options that change what a run computes; a resumed run takes them from its manifest.
FIXED_ON_RESUME = ("models", "models_file", "api_base", "tasks", "trials", "rounds", "feedback", "agent", "contract", "sampling",
                   "run_id", "kind", "tests", "preregistered")
# Between a model and the prompt contract of its own configuration: `--model M::CONTRACT`.
CONTRACT_SEPARATOR = "::"


def split_contract(text: str) -> tuple[str, str]:
    """`MODEL::CONTRACT` -> (MODEL, CONTRACT), CONTRACT a bundled contract's name or a contract
    file's path (`.toml`); the `::` of an IPv6 endpoint (`openai/m@http://[::1]:8000/v1`) is not
    a separator: a contract has no `]` or `:`, and a `/` only in a file's path."""
    model, sep, own = text.rpartition(CONTRACT_SEPARATOR)
    if not sep or any(ch in own for ch in "]:") or ("/" in own and not own.endswith(".toml")):
        return text, ""
    return model, own

