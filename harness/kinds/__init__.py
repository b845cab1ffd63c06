"""The kinds of task by name, the one list of them: what `harness run --kind` runs
(repair.py, tests.py), what GRPO trains on (each kind's environment, train/environments.py)
and what a report counts of each (its metrics). The interface is base.py; ARCHITECTURE.md
says how to add a kind."""

from __future__ import annotations

from typing import get_args

from ..errors import BadInput
from ..records import Record, TrialKindName
from .base import Kind, KindName, RoundFacts, RoundJudgement, TrialKind
from .predict import PredictKind
from .repair import RepairKind
from .tests import TestWritingKind

KINDS: dict[str, type[Kind]] = {k.name: k for k in (RepairKind, PredictKind, TestWritingKind)}
DEFAULT_KIND: TrialKindName = "repair"
TRIAL_KINDS: tuple[TrialKindName, ...] = get_args(TrialKindName)


def kind_class(name: str) -> type[Kind]:
    """The kind of that name; an unknown one is bad input naming the kinds there are."""
    found = KINDS.get(name)
    if found is None:
        raise BadInput(f"unknown kind {name!r}: choose one of {', '.join(KINDS)}")
    return found


def make_kind(name: str, settings: Record | None = None) -> TrialKind:
    """The trial kind of that name, with the settings a run gives it (a kind that has
    none ignores them)."""
    found = kind_class(name)
    if not issubclass(found, TrialKind):
        raise BadInput(f"kind {name!r} does not run as trials: choose one of {', '.join(TRIAL_KINDS)}")
    return found(settings)


def metrics_of(name: str | None) -> tuple[str, ...]:
    """The report metrics of a run's trials by the kind its manifest records (None: not
    recorded, as in imported runs): none beyond tasks solved unless its kind has them."""
    found = KINDS.get(name) if name is not None else None
    return found.metrics if found is not None else ()


def kinds_with(flag: str) -> list[str]:
    """The trial kinds that have `flag` (simulated_feedback, mutant_answers, settings_type),
    for saying what an option is for."""
    return [n for n in TRIAL_KINDS if getattr(KINDS[n], flag)]


__all__ = ["DEFAULT_KIND", "KINDS", "TRIAL_KINDS", "Kind", "KindName", "RoundFacts", "RoundJudgement", "TrialKind",
           "kind_class", "kinds_with", "make_kind", "metrics_of"]
