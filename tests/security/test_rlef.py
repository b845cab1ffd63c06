"""The two-turn repair environment's judge (train/multiturn.py): an exchange is read as two
repair answers, each by the one-turn rule, in the harness's process. A second answer that
names a file the task does not let it write, or a text that only claims to be an exchange,
earns nothing; the final code is the first answer's files with the second's over them."""

from __future__ import annotations

import json

from harness.agents.editformat import render_whole
from harness.train.multiturn import RlefJudge, turns_text
from harness.train.rewards import ExactVerifier

from tests.train_support import write_toy_task


def test_an_exchange_is_judged_on_its_final_code_and_hostile_turns_earn_nothing(tmp_path):
    task = str(write_toy_task(tmp_path / "colour", "green"))
    green, red = render_whole({"answer.txt": "green"}), render_whole({"answer.txt": "red"})
    cases = [
        (turns_text([red, green]), 1.0, "ok"),                    # repaired in the second turn
        (turns_text([green]), 1.0, "ok"),                          # passed its public tests: one turn
        (turns_text([green, red]), -1.0, "ok"),                    # broken in the second turn
        (turns_text([green, "It is right as it is."]), 1.0, "ok"),  # writes no file: the first answer's stays
        (turns_text([red, render_whole({"../outside.txt": "green"})]), -1.0, "malformed"),  # outside the task
        (turns_text([red, render_whole({".meta/example.txt": "red"})]), -1.0, "malformed"),  # the reference
        (render_whole({"answer.txt": "green"}), -1.0, "malformed"),  # one answer, not an exchange
        (json.dumps([green, green, green]), -1.0, "malformed"),      # more turns than the environment has
        (json.dumps({"answer.txt": "green"}), -1.0, "malformed"),    # files claimed as data
    ]
    judged = RlefJudge(ExactVerifier()).judge([c[0] for c in cases], [task] * len(cases))
    assert [(j.reward, j.status) for j in judged] == [(c[1], c[2]) for c in cases]
