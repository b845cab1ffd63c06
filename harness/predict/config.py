"""What `harness predict build` and `harness predict eval` are asked: one config model each,
whose defaults the CLI shows (cli/options.default)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Literal

from pydantic import Field, model_validator

from ..curriculum.config import default_root
from ..records import Record

DEFAULT_EVAL_SHARE = 0.2
# What a resumed prediction run takes from its own manifest.
_FIXED_ON_RESUME = ("model", "items", "split", "trials", "temperature", "top_p", "api_base", "run_id")
_NAME = re.compile(r"[a-z0-9][a-z0-9_.-]*")


class SetOutput(Record):
    """What every command that writes a prediction set is asked besides its source: the
    set's name and root, the train/eval split, and the sandbox its values are observed in."""

    out: str
    eval_tasks: list[str] | None = None
    eval_share: float | None = Field(None, ge=0, lt=1, description=f"share of tasks held out for eval "
                                     f"(default {DEFAULT_EVAL_SHARE} when --eval-tasks is not given)")
    seed: int = 0
    root: Path | None = None
    replace: bool = False
    sandbox: str = "auto"
    workers: int | None = Field(None, ge=1)
    run_timeout_s: float = Field(10.0, gt=0, description="one run of a probe program")

    @model_validator(mode="after")
    def _one_split_rule(self) -> "SetOutput":
        if self.eval_tasks is not None and self.eval_share is not None:
            raise ValueError("give --eval-tasks or --eval-share, not both")
        if not _NAME.fullmatch(self.out):
            raise ValueError(f"{self.out!r} is not a set name (lowercase letters, digits, '.', '_', '-')")
        return self

    def out_root(self) -> Path:
        return Path(self.root) if self.root is not None else default_root()


class PredictBuildConfig(SetOutput):
    suite: str
    runs: list[str] = Field(default_factory=list, description="runs whose recorded answers are code too")
    runs_dir: Path = Path("runs")
    tasks: list[str] | None = None
    mutants: int = Field(3, ge=0, description="compiling mutants of the reference per task")


class ProblemsImportConfig(SetOutput):
    """What `harness predict import problems` is asked: a JSONL of problems made into a set of
    (program, stdin) -> stdout items (predict/problems.py); a task is a problem, and
    `run_timeout_s` bounds one solution's run on one test."""

    path: Path
    solutions: int = Field(3, ge=1, description="Python 3 solutions run per problem, the first ones")
    tests: int = Field(20, ge=1, description="tests run per problem, public first")


class PredictImportConfig(Record):
    """`harness predict import BENCHMARK PATH`: a published benchmark's data read as a set."""

    path: Path = Field(description="the user's checkout of the benchmark, or its data file")
    out: str
    root: Path | None = None
    replace: bool = False

    @model_validator(mode="after")
    def _set_name(self) -> "PredictImportConfig":
        if not _NAME.fullmatch(self.out):
            raise ValueError(f"{self.out!r} is not a set name (lowercase letters, digits, '.', '_', '-')")
        return self

    def out_root(self) -> Path:
        return Path(self.root) if self.root is not None else default_root()


class PredictEvalConfig(Record):
    """What `harness predict eval` is asked: one model on one set's items, `trials` samples
    of each (the CLI's `--samples`; each is a trial of the run, the n of pass@k) at the given
    sampling. With `resume`, the run's own manifest decides the model, set, split, samples
    and sampling."""

    model: str | None = None
    items: str | None = Field(None, description="the set's name under the root")
    split: Literal["eval", "train", "all"] = "eval"
    trials: int = Field(1, ge=1, description="samples per item, each a trial")
    temperature: float | None = Field(None, ge=0, description="sampling temperature (default: the server's)")
    top_p: float | None = Field(None, gt=0, le=1, description="nucleus sampling's share (default: the server's)")
    workers: int = Field(4, ge=1)
    sandbox: str = Field("auto", description="where answers are evaluated, for a rule that executes them (CruxEval's)")
    api_base: str | None = None
    root: Path | None = None
    runs_dir: Path = Path("runs")
    run_id: str | None = None
    retries: int = Field(4, ge=1, description="tries of one model call before the provider counts as failed")
    backoff_s: float = Field(2.0, ge=0, description="the wait after the first failed try, doubled after each")
    timeout_s: float = Field(120.0, gt=0, description="one model call")
    resume: str | None = Field(None, description="a prediction run to continue: its trials without an outcome run again")

    @model_validator(mode="after")
    def _new_or_resumed(self) -> "PredictEvalConfig":
        if self.resume is not None:
            given = sorted(f for f in _FIXED_ON_RESUME if f in self.model_fields_set)
            if given:
                raise ValueError(f"--resume takes {', '.join(given)} from the run; drop those options")
        elif self.model is None or self.items is None:
            raise ValueError("give --model and --items (or --resume RUN_ID)")
        return self

    def items_root(self) -> Path:
        return Path(self.root) if self.root is not None else default_root()


Strategy = Literal["exec", "simulate", "shortest", "random"]
# How a judge's several predictions of one public case make one verdict (predict/judge.py).
Aggregate = Literal["majority", "any"]
DEFAULT_STRATEGIES: tuple[Strategy, ...] = ("exec", "shortest", "random")
STRATEGIES: tuple[Strategy, ...] = ("exec", "simulate", "shortest", "random")


class SelectConfig(Record):
    """`harness select`: rank scores at k over a run's first n answers (predict/select.py)."""

    run: str
    runs_dir: Path = Path("runs")
    k: int = Field(ge=1, description="answers a ranker sees: k drawn from the n")
    n: int | None = Field(None, ge=1, description="candidates per task: the first N trials' answers (default: k)")
    by: list[Strategy] = Field(default_factory=lambda: list(DEFAULT_STRATEGIES), min_length=1)
    judge_model: str | None = Field(None, description="simulate: the judge (default: each configuration's own model)")
    api_base: str | None = Field(None, description="simulate: the judge's endpoint (default: the configuration's)")
    attempts: int = Field(1, ge=1, description="simulate: predictions per candidate and public case")
    aggregate: Aggregate = Field("majority", description="simulate: how a case's attempts make "
                                                  "one verdict: more than half predict a pass, or one does")
    seed: int = 0
    sandbox: str = "auto"
    workers: int | None = Field(None, ge=1)

    @model_validator(mode="after")
    def _k_of_n(self) -> "SelectConfig":
        if self.n is not None and self.k > self.n:
            raise ValueError(f"--k {self.k} is more than --n {self.n}")
        return self

    @property
    def candidates(self) -> int:
        return self.n or self.k
