"""The registry of task kinds (harness/kinds/): every kind by name, once, and a name it
does not hold refused with the one line a user sees."""

from __future__ import annotations

from pathlib import Path
from typing import get_args

import pytest
from typer.testing import CliRunner

from harness.cli import app
from harness.errors import BadInput
from harness.kinds import KINDS, TRIAL_KINDS, KindName, RoundFacts, TrialKind, kind_class, make_kind
from harness.records import RoundRecord


def test_the_registry_lists_the_three_kinds_and_runs_two_as_trials():
    assert set(KINDS) == {"repair", "tests", "predict"} == set(get_args(KindName))
    assert all(k.name == name for name, k in KINDS.items())
    assert {n for n, k in KINDS.items() if issubclass(k, TrialKind)} == set(TRIAL_KINDS) == {"repair", "tests"}
    assert {k.grpo_file for k in KINDS.values()} == {"grpo.jsonl", "grpo-tests.jsonl", "grpo-predict.jsonl"}
    assert make_kind("repair").settings is None and make_kind("tests").settings is not None


def test_an_unknown_kind_is_refused_naming_the_kinds():
    with pytest.raises(BadInput, match=r"^unknown kind 'prose': choose one of repair, predict, tests$"):
        kind_class("prose")
    with pytest.raises(BadInput, match=r"^kind 'predict' does not run as trials: choose one of repair, tests$"):
        make_kind("predict")
    got = CliRunner().invoke(app, ["run", "--model", "gold", "--kind", "prose"])
    assert got.exit_code == 2 and got.output.strip() == "error: --kind: input should be 'repair' or 'tests'"


def test_each_kinds_facts_are_fields_of_the_round_record():
    """A round's facts are written flat into its RoundRecord, so old and new run folders read alike."""
    for facts in RoundFacts.__subclasses__():
        for name, field in facts.model_fields.items():
            assert name in RoundRecord.model_fields, (facts.__name__, name)
            kept = RoundRecord.model_fields[name].annotation
            assert field.annotation == kept or kept == field.annotation | None, (facts.__name__, name)


def test_every_kind_is_a_grpo_environment():
    from harness.train.environments import _JUDGES, _LOADERS, environment_of
    from harness.train.multiturn import ENVIRONMENT as RLEF

    # Besides one environment a kind, the two-turn repair environment (repair's data).
    assert set(_LOADERS) == set(_JUDGES) == set(KINDS) | {RLEF}
    assert [environment_of(Path(f"x/{k.grpo_file}")) for k in KINDS.values()] == list(KINDS)
    assert environment_of(Path("x/anything.jsonl")) == "repair"
