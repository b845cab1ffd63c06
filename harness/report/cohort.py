"""A selected cohort (--cohort best:K): the trials kept, how much the selection raised
each mean, and the mark on every interval and p-value that no longer holds."""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from .. import stats
from .formatting import fmt_signed
from .options import ReportOptions


@dataclass
class Cohort:
    note: str
    inflation: dict[str, float]


def select_cohort(frame: pd.DataFrame, opts: ReportOptions) -> tuple[pd.DataFrame, Cohort | None]:
    """The selected trials, and what a reader must know about them: how they were picked,
    how much the selection raised each mean, and that intervals and p-values do not hold."""
    k = opts.cohort
    if k is None:
        return frame, None
    trials = frame.groupby("config")["trial"].nunique()
    selected = stats.best_trials(frame, k, opts.judged_round)
    inflation = stats.cohort_inflation(frame, selected, opts.judged_round)
    ranked = "in round 1" if opts.judged_round == 1 else "within two rounds"
    if trials.nunique() == 1:
        picked = f"best {k} of {int(trials.iloc[0])} trials"
    else:
        picked = f"best {k} of each config's trials ({', '.join(f'{c}: {t}' for c, t in trials.items())})"
    note = (f"Selected cohort: {picked}, ranked by tasks solved {ranked}. Selection raises the mean solved "
            f"{ranked} over the mean of all trials, on the same data, by "
            + ", ".join(f"{fmt_signed(v)} tasks ({c})" for c, v in inflation.items())
            + ". Intervals and p-values marked * are not valid for a selected cohort: they treat the chosen "
            "trials as a random draw.")
    return selected, Cohort(note, inflation)


def starred(text: str, cohort: Cohort | None) -> str:
    return f"{text} *" if cohort else text


def cohort_caption(cohort: Cohort | None) -> str | None:
    return "selected cohort; * not valid for a selected cohort" if cohort else None
