"""`harness train dpo` on a tiny random model (no downloads), with preference rows as `tests
export` writes them: it learns its pairs (the loss falls from log 2, the chosen answer's
implicit reward overtakes the rejected one's), publishes a carded adapter found by name, and
continued from an adapter it is held to that adapter, not to the base under it."""

from __future__ import annotations

import json
import math

import pytest

from harness.adapter_card import load_card, verify_card
from harness.testwriting.export import PREFERENCE_FILE, PreferenceRow
from harness.training_files import ChatMessage, write_jsonl

from tests.train_support import CPU, harness, private_state, steps_of

pytestmark = pytest.mark.slow

FAST = ["--set", "dpo.batch_size=2", "--lr", "1e-2", *CPU]


def _say(role: str, text: str) -> list[ChatMessage]:
    return [ChatMessage(role=role, content=text)]  # type: ignore[arg-type]


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    from tests.tinymodel import build_tiny_model

    root = tmp_path_factory.mktemp("dpo")
    rows = [PreferenceRow(task_id="pairs/t", source_task="toy/t", prompt=_say("user", f"Write a test of f ({i})."),
                          chosen=_say("assistant", "REQUIRE(f(1) == 2);"),
                          rejected=_say("assistant", "REQUIRE(f(1) == 3);"),
                          chosen_score={"valid": True, "kill_rate": 1.0}, rejected_score={"valid": False, "kill_rate": None})
            for i in range(4)]
    write_jsonl(root / "curricula" / "pairs" / PREFERENCE_FILE, rows)
    with private_state(root / "state"):
        world = {"root": root, "base": build_tiny_model(root / "base"), "runs": root / "runs",
                 "cards": root / "state" / "adapters"}
        world["first"] = harness("train", "dpo", "--curriculum", f"pairs/{PREFERENCE_FILE}", "--base", str(world["base"]),
                                 "--out", "d1", "--epochs", "3", "--runs-dir", str(world["runs"]), *FAST, cwd=root)
        yield world


def test_dpo_learns_its_pairs_and_publishes_a_carded_adapter(world):
    assert world["first"].returncode == 0, world["first"].stderr
    log = world["runs"] / "train" / "d1" / "log.jsonl"
    end = json.loads(log.read_text().splitlines()[-1])
    assert end["kind"] == "end" and end["adapters"] == ["d1"] and end["summary"]["rows_scored"] == 4
    assert end["summary"]["loss_before"] == pytest.approx(math.log(2), abs=1e-4)
    assert end["summary"]["loss_after"] < end["summary"]["loss_before"] - 0.1
    steps = steps_of(log)
    assert len(steps) == end["steps"] == 6  # 4 pairs x 3 epochs / 2 per step
    assert steps[-1]["reward_accuracy"] == 1.0 and steps[-1]["reward_chosen"] > steps[-1]["reward_rejected"]
    card = load_card(world["cards"] / "d1.toml")
    verify_card(card, world["cards"] / "d1.toml")
    assert card.training.config["kind"] == "dpo" and card.training.trained_on_tasks == ["toy/t"]
    assert card.training.parent is None


def test_dpo_from_an_adapter_is_held_to_that_adapter(world):
    assert world["first"].returncode == 0, world["first"].stderr
    with private_state(world["root"] / "state"):
        done = harness("train", "dpo", "--curriculum", str(world["root"] / "curricula" / "pairs"), "--base",
                       str(world["base"]), "--init-adapter", "d1", "--out", "d2", "--runs-dir", str(world["runs"]),
                       *FAST, cwd=world["root"])
    assert done.returncode == 0, done.stderr
    end = json.loads((world["runs"] / "train" / "d2" / "log.jsonl").read_text().splitlines()[-1])
    # Against the base, d1's pairs would start well below log 2 (d1 already prefers the chosen).
    assert end["summary"]["loss_before"] == pytest.approx(math.log(2), abs=1e-4)
    assert load_card(world["cards"] / "d2.toml").training.parent == "d1"
