"""The loop's pure parts: the pre-registered bar on held-in and held-out tasks, when it
stops the loop, the loop's config file, bad input on the command line, and how a
report counts an adapter's curriculum tasks as training overlap."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pandas as pd
import pytest

from harness.bar import BarCheck, bar_check
from harness.errors import BadInput
from harness.loop.config import load_loop_config
from harness.loop.lineage import Iteration, failures_in_a_row
from harness.outcomes import ConfigInfo, load_outcomes_file
from harness.report.scope import trained_tasks

from tests.train_support import HARNESS


def outcomes(tmp_path: Path, name: str, solved: dict[str, int], trials: int = 4):
    """One config; task t solved in round 1 in the first solved[t] of its trials."""
    rows = [{"config": name, "task": t, "trial": k, "round1": k <= c, "round2": k <= c, "suite": "toy"}
            for t, c in solved.items() for k in range(1, trials + 1)]
    path = tmp_path / f"{name}.csv"
    pd.DataFrame(rows).to_csv(path, index=False)
    return load_outcomes_file(path)


HELD_IN = [f"t{i}" for i in range(6)]


def test_the_bar_is_checked_on_held_in_and_held_out_tasks_apart(tmp_path):
    before = outcomes(tmp_path, "before", {**{t: 0 for t in HELD_IN}, "h1": 2, "h2": 4})
    after = outcomes(tmp_path, "after", {**{t: 4 for t in HELD_IN}, "h1": 2, "h2": 4})
    check = bar_check(before, after, ["toy/h1", "h2"], delta=0.5, round_no=1, against=3, resamples=2000)
    held_in, held_out = check.scopes
    # Every held-in task went from 0/4 to 4/4: a gain of 6 tasks, but 4 trials do not make
    # 0/4 certain, so the interval reaches below 6.
    assert (held_in.scope, held_in.tasks) == ("held-in", HELD_IN)
    assert (held_in.before, held_in.after, held_in.difference, held_in.high) == (0.0, 6.0, 6.0, 6.0)
    assert 0.5 <= held_in.low < 6.0
    assert held_in.passed
    # The held-out tasks did not move (2/4 + 4/4 = 1.5 tasks before and after).
    assert (held_out.scope, held_out.tasks) == ("held-out", ["h1", "h2"])
    assert (held_out.before, held_out.after, held_out.difference) == (1.5, 1.5, 0.0)
    assert not held_out.passed
    assert not check.passed and check.against == 3 and check.delta == 0.5


def test_the_bar_needs_the_lower_bound_above_delta_not_the_mean(tmp_path):
    before = outcomes(tmp_path, "before", {t: 0 for t in HELD_IN})
    # A gain of one task, all of it on one task: resamples without t0 gain nothing.
    after = outcomes(tmp_path, "after", {**{t: 0 for t in HELD_IN}, "t0": 4})
    check = bar_check(before, after, [], delta=0.5, round_no=1, against=0, resamples=2000)
    (only,) = check.scopes
    assert only.scope == "held-in" and only.difference == 1.0 and only.low <= 0.0
    assert not check.passed
    assert bar_check(before, after, [], delta=only.low, round_no=1, against=0, resamples=2000).passed  # at least


def _it(index: int, passed: bool | None) -> Iteration:
    bar = None if passed is None else BarCheck(delta=0, round=1, against=index - 1, scopes=[], passed=passed)
    return Iteration(index=index, bar=bar, started_at="")


@pytest.mark.parametrize("verdicts, expected", [
    ([None, True, False, False], 2),
    ([None, False, True], 0),
    ([None, False, False, True, False], 1),
    ([None], 0),
])
def test_failures_are_counted_back_to_the_last_pass(verdicts, expected):
    assert failures_in_a_row([_it(i, v) for i, v in enumerate(verdicts)]) == expected


def test_the_config_file_and_the_options_merge(tmp_path):
    path = tmp_path / "loop.toml"
    path.write_text('suite = "fixed26"\ntrials = 3\n[serve]\nbackend = "local"\nport = 9001\n'
                    '[train.grpo]\nupdates = 2\n[eval]\nsampling = { temperature = 0.0 }\n')
    config = load_loop_config(path, {"base": "m", "iterations": 2, "trials": 5, "serve": {"port": 9002}})
    assert (config.suite, config.base, config.iterations, config.trials) == ("fixed26", "m", 2, 5)
    assert (config.serve.backend, config.serve.port) == ("local", 9002)
    assert config.train.grpo.updates == 2 and config.train.grpo.samples_per_prompt == 32  # the study's default
    assert config.eval.sampling.temperature == 0.0 and config.stop_after_failures == 2
    assert (config.kind, config.trainer) == ("repair", "grpo")
    tests = load_loop_config(None, {"suite": "fixed26", "base": "m", "iterations": 1, "trials": 1, "kind": "tests",
                                    "trainer": "dpo", "tests": {"mutant_cap": 5}})
    assert (tests.kind, tests.trainer, tests.tests.mutant_cap, tests.export.min_kill) == ("tests", "dpo", 5, 0.8)


@pytest.mark.parametrize("text, given, message", [
    ("", {"suite": "s", "iterations": 1, "trials": 1}, "base: missing"),
    ("[eval]\nwokers = 2\n", {"suite": "s", "base": "m", "iterations": 1, "trials": 1}, "eval.wokers: unknown setting"),
    ("", {"suite": "s", "base": "m", "iterations": 0, "trials": 1}, "iterations:"),
    ("suite = [", {}, "not valid TOML"),
    ('trainer = "sft"\n', {"suite": "s", "base": "m", "iterations": 1, "trials": 1}, "trainer sft: a repair loop trains GRPO"),
])
def test_a_bad_config_is_one_line(tmp_path, text, given, message):
    path = tmp_path / "loop.toml"
    path.write_text(text)
    with pytest.raises(BadInput, match=message):
        load_loop_config(path, given)


@pytest.mark.parametrize("args, message", [
    (["--suite", "fixed26", "--base", "m", "--iterations", "1", "--trials", "1", "--hold-out", "nope"],
     "--hold-out nope: suite fixed26 has no such task"),
    (["--suite", "nope", "--base", "m", "--iterations", "1", "--trials", "1"], "unknown suite 'nope'"),
    (["--resume", "x", "--trials", "2"], "--resume continues a loop with its own config"),
    (["--resume", "never-ran"], "no loop 'never-ran'"),
    (["--suite", "fixed26", "--base", "m", "--iterations", "1", "--trials", "1", "--backend", "tgi"], "serve.backend"),
])
def test_bad_input_is_one_line_and_exit_2(tmp_path, args, message):
    done = subprocess.run([HARNESS, "loop", *args, "--runs-dir", str(tmp_path)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 2, done.stderr
    assert message in done.stderr and "Traceback" not in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "loops").exists()


def test_curriculum_task_ids_count_as_training_overlap_in_their_own_suite():
    info = ConfigInfo(name="a", source="run", suite="toy3 0.1", trained_on_tasks=["toy3/cube", "other/square", "twice"])
    assert trained_tasks(info, {"cube", "square", "twice"}) == {"cube", "twice"}
    unknown_suite = ConfigInfo(name="b", source="file", trained_on_tasks=["toy3/cube"])
    assert trained_tasks(unknown_suite, {"cube"}) == {"cube"}
