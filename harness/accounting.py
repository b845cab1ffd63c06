"""Two ways to count the trials that did not finish, and Aider's benchmark summary.

The harness view (the default) leaves a trial that ended in an infrastructure error out of
every denominator: it is not done, and `--resume` reruns it. Aider's benchmark counts a
test case whose run raised (its results file then holds only the exception) as completed
and failed, and so does the aider view: a trial whose agent raised, whose round timed out
or whose provider kept failing after the agent's retries (infrastructure kinds "agent" and
"provider") counts as a finished trial solved in no round. Failures of the sandbox, bugs of
the harness and interruptions have no counterpart in Aider's benchmark and stay unfinished
in both views.

`aider_summary` computes, per configuration and trial, the numbers Aider's own
`summarize_results` prints, with its definitions and its rounding, so that a folder of
`.aider.results.json` files reads here as Aider read it; over tasks of several languages
(named `<language>.<exercise>`) also per language, as Aider's summary prints them for one
language (`--stats-languages`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import pandas as pd

from .errors import InfraKind
from .languages import language_in_name
from .outcomes import DEFAULT_ROUNDS
from .records import TrialOutcome

Accounting = Literal["harness", "aider"]
ACCOUNTING_VIEWS: tuple[Accounting, ...] = ("harness", "aider")
# Infrastructure failures that Aider's benchmark would have recorded as a failed test case.
AIDER_COUNTED_KINDS = (InfraKind.agent.value, InfraKind.provider.value)


def describe(view: Accounting) -> str:
    if view == "aider":
        return ("Aider accounting: a trial whose agent raised, whose round timed out or whose provider failed "
                "after retries counts as finished and failed, as Aider's benchmark counts it.")
    return ("Harness accounting: a trial that ended in an infrastructure error is not finished and counts in "
            "no denominator (`harness run --resume` reruns it).")


def in_view(frame: pd.DataFrame, view: Accounting) -> pd.DataFrame:
    """The frame as the view counts it: in the aider view, the infrastructure errors Aider
    would have counted become finished failures."""
    if view == "harness":
        return frame
    # An error before any test, or after a failed round 1 ("partial"): either way, not solved.
    unfinished = frame["status"].isin([TrialOutcome.infra_error.value, "partial"])
    counted = unfinished & frame["infra_kind"].isin(AIDER_COUNTED_KINDS)
    if not counted.any():
        return frame
    frame = frame.copy()
    planned = pd.to_numeric(frame["rounds"], errors="coerce").fillna(DEFAULT_ROUNDS).astype("int64")
    frame.loc[counted, "status"] = TrialOutcome.failed.value
    frame.loc[counted, ["done", "round1", "round2", "round1_known"]] = [True, False, False, True]
    frame.loc[counted, "rounds_recorded"] = planned[counted]
    frame.loc[counted, "round2_known"] = planned[counted] >= 2
    return frame


@dataclass
class AiderSummary:
    """What Aider's summarize_results prints for one benchmark run folder, computed from
    the trials it counts (finished ones, in the aider view)."""

    config: str
    trial: int | None           # None: every trial of the config together
    language: str | None        # None: every language of the run together
    test_cases: int             # Aider's completed_tests
    pass_num: tuple[int, int]   # solved within 1 and within 2 tries
    num_with_malformed_responses: int
    num_malformed_responses: int
    error_outputs: int
    user_asks: int
    lazy_comments: int
    exhausted_context_windows: int
    prompt_tokens: int
    completion_tokens: int
    test_timeouts: int
    seconds: float
    cost: float

    def pass_rate(self, tries: int) -> str:
        """As Aider prints it: a percent of the completed cases, one decimal."""
        return f"{100 * self.pass_num[tries - 1] / self.test_cases:.1f}"

    @property
    def percent_cases_well_formed(self) -> str:
        return f"{(1.0 - self.num_with_malformed_responses / self.test_cases) * 100:.1f}"

    @property
    def seconds_per_case(self) -> str:
        return f"{self.seconds / self.test_cases:.1f}"

    @property
    def total_cost(self) -> str:
        return f"{self.cost:.4f}"

    def as_dict(self) -> dict:
        return {
            "config": self.config, "trial": self.trial, "language": self.language, "test_cases": self.test_cases,
            "pass_rate_1": self.pass_rate(1), "pass_rate_2": self.pass_rate(2),
            "pass_num_1": self.pass_num[0], "pass_num_2": self.pass_num[1],
            "percent_cases_well_formed": self.percent_cases_well_formed,
            "error_outputs": self.error_outputs, "num_malformed_responses": self.num_malformed_responses,
            "num_with_malformed_responses": self.num_with_malformed_responses, "user_asks": self.user_asks,
            "lazy_comments": self.lazy_comments, "exhausted_context_windows": self.exhausted_context_windows,
            "prompt_tokens": self.prompt_tokens, "completion_tokens": self.completion_tokens,
            "test_timeouts": self.test_timeouts, "seconds_per_case": self.seconds_per_case,
            "total_cost": self.total_cost,
        }


def _summary(config: str, trial: int | None, rows: pd.DataFrame, language: str | None = None) -> AiderSummary:
    return AiderSummary(
        config=config, trial=trial, language=language, test_cases=len(rows),
        pass_num=(int(rows["round1"].sum()), int(rows["round2"].sum())),
        num_with_malformed_responses=int((rows["malformed_responses"] > 0).sum()),
        num_malformed_responses=int(rows["malformed_responses"].sum()),
        error_outputs=int(rows["error_outputs"].sum()), user_asks=int(rows["user_asks"].sum()),
        lazy_comments=int(rows["lazy_comments"].sum()),
        exhausted_context_windows=int(rows["exhausted_context_windows"].sum()),
        prompt_tokens=int(rows["prompt_tokens"].sum()), completion_tokens=int(rows["completion_tokens"].sum()),
        test_timeouts=int(rows["timeouts"].sum()), seconds=float(rows["agent_seconds"].sum()),
        cost=float(rows["cost"].sum()),
    )


def aider_summary(frame: pd.DataFrame, configs: list[str]) -> list[AiderSummary]:
    """Per config, one summary per trial (an Aider run folder is one trial), then, for a
    config with several trials, one over all of them; where the tasks are of several
    languages, each followed by one per language. Only counted trials enter (the frame
    should already be in the aider view)."""
    out = []
    done = frame[frame["done"]]
    languages = done["task"].map(language_in_name)
    split = frame["task"].map(language_in_name).nunique() > 1
    for name in configs:
        rows = done[done["config"] == name]
        if rows.empty:
            continue
        trials = sorted(rows["trial"].unique())
        groups = [(int(k), rows[rows["trial"] == k]) for k in trials] + ([(None, rows)] if len(trials) > 1 else [])
        for trial, these in groups:
            out.append(_summary(name, trial, these))
            if split:
                of = languages[these.index]
                out += [_summary(name, trial, these[of == lang], lang) for lang in sorted(of.dropna().unique())]
    return out
