"""Output prediction as a GRPO environment: the exact-match reward on hand-written answers
(values worked out by hand in test_predict.py), the schedule's weights over a seeded draw,
mixed data loaded by environment, and, on a tiny model, GRPO on a predict set built with
`harness predict build`, a run mixing it with a repair curriculum by the paper's preset
whose step log shows both environments, prompt for prompt as the schedule drew them, and
predict's rewards scaled, and one step of the two-turn repair environment (rlef). One
update each: the tiny model and the predict set are the module's."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from harness.agents.editformat import render_whole
from harness.errors import BadInput
from harness.predict.items import GRPO_FILE, PredictGrpoRow
from harness.predict.prompt import FORMAT_VERSION, prompt_messages
from harness.probe.compare import Comparison
from harness.train.environments import load_training_data, schedule
from harness.train.rewards import ExactVerifier, GrpoReward, PredictJudge, PredictTarget, RepairJudge
from harness.train.schedule import draw, resolve_weights

from tests.conftest import ROOT
from tests.train_support import CPU, harness, private_state, steps_of, write_cpp_curriculum, write_toy_curriculum

APPROX = Comparison(mode="approx", abs_tol=1e-5)     # predict/build.rule_for an exact check
PHONE = 'phone_number::phone_number("{}").number()'.format
EARTH = "space_age::space_age(1000000000).on_earth()"

# (call, expected record, answer, reward, status); the values are test_predict.py's, observed in Docker.
CASES = [
    (PHONE("(223) 456-7890"), {"o": [{"v": "2234567890"}]}, '```\n"2234567890"\n```', 1.0, "right"),
    (PHONE("(223) 456-7890"), {"o": [{"v": "2234567890"}]}, '"2234567890"', 1.0, "right"),   # no fence
    (PHONE("(223) 456-7890"), {"o": [{"v": "2234567890"}]}, '```\n"12234567890"\n```', -1.0, "wrong"),
    (PHONE("(223) 456-7890"), {"o": [{"v": "2234567890"}]}, "```\n2234567890\n```", -1.0, "wrong"),  # a number
    (PHONE("(223) 456-7890"), {"o": [{"v": "2234567890"}]}, "It returns 2234567890.", -1.0, "malformed"),
    (PHONE("(223) 456-7890"), {"o": [{"v": "2234567890"}]}, '```\n"2234567890"\n"2234567890"\n```', -1.0, "malformed"),
    (EARTH, {"o": [{"v": 31.68808781402895}]}, "```\n31.688091\n```", 1.0, "right"),    # within 1e-5
    (EARTH, {"o": [{"v": 31.68808781402895}]}, "```\n31.6881\n```", -1.0, "wrong"),     # 1.2e-5 off
    (PHONE("22234567890"), {"o": [{"x": "std::domain_error"}]}, "```\nthrows std::domain_error\n```", 1.0, "right"),
    (PHONE("22234567890"), {"o": [{"x": "std::domain_error"}]}, "```\nthrows std::invalid_argument\n```", -1.0, "wrong"),
    (PHONE("22234567890"), {"o": [{"x": "std::domain_error"}]}, '```\n"2234567890"\n```', -1.0, "wrong"),
    (PHONE("22234567890"), {"o": [{"x": "std::domain_error"}]}, "```\nthrows\n```", -1.0, "malformed"),
]


def _target(call: str, expected: dict) -> str:
    return PredictTarget(call=call, expected=expected, compare=APPROX).model_dump_json()


def test_the_prediction_reward_is_exact_match_with_the_float_tolerance():
    judged = PredictJudge().judge([c[2] for c in CASES], [_target(c[0], c[1]) for c in CASES])
    assert [(j.reward, j.status) for j in judged] == [(c[3], c[4]) for c in CASES]


def test_one_batch_mixing_environments_is_judged_by_each_prompts_own(tmp_path):
    cur = write_toy_curriculum(tmp_path / "toy", "green")
    task = str(cur / "colour")
    texts = [render_whole({"answer.txt": "green"}), CASES[0][2], render_whole({"answer.txt": "red"}), CASES[2][2],
             CASES[4][2]]
    envs = ["repair", "predict", "repair", "predict", "predict"]
    targets = [task, _target(*CASES[0][:2]), task, _target(*CASES[2][:2]), _target(*CASES[4][:2])]
    reward = GrpoReward({"repair": RepairJudge(ExactVerifier()), "predict": PredictJudge()})
    completions = [[{"role": "assistant", "content": t}] for t in texts]
    reward.submit(completions, envs, targets)   # as the trainer does right after generation
    assert reward(prompts=[None] * 5, completions=completions, environment=envs, target=targets) == [1, 1, -1, -1, -1]
    stats = reward.take_stats()
    assert stats.environments() == ["predict", "repair"]
    assert stats.only("repair").rewards == [1.0, -1.0] and dict(stats.only("repair").statuses) == {"ok": 2}
    assert dict(stats.only("predict").statuses) == {"right": 1, "wrong": 1, "malformed": 1}
    assert stats.malformed == 1 and stats.passed == 2
    reward.close()


def test_weights_are_honoured_over_a_seeded_draw():
    sizes = {"repair": 3, "predict": 50}
    weights = resolve_weights(sizes, {"repair": 0.2, "predict": 0.8})
    drawn = draw(sizes, weights, 2000, seed=7)
    assert drawn == draw(sizes, weights, 2000, seed=7) and drawn != draw(sizes, weights, 2000, seed=8)
    counts = Counter(env for env, _ in drawn)
    print(f"2000 prompts drawn at 0.2/0.8: {dict(counts)}")
    # Binomial(2000, 0.2): sd ~17.9; four sd either side.
    assert abs(counts["repair"] - 400) < 72 and counts["repair"] + counts["predict"] == 2000
    # Within an environment, rows come in passes: every row once before any row twice.
    repair = [i for env, i in drawn if env == "repair"]
    assert all(sorted(repair[k:k + 3]) == [0, 1, 2] for k in range(0, len(repair) - 2, 3))
    # Unweighted, every row is equally likely: the environments in proportion to their rows.
    assert resolve_weights(sizes, {}) == {"repair": 3.0, "predict": 50.0}
    with pytest.raises(BadInput, match="gives predict a share but no predict data"):
        resolve_weights({"repair": 3}, {"repair": 0.2, "predict": 0.8})
    with pytest.raises(BadInput, match="no share to repair"):
        resolve_weights(sizes, {"predict": 1.0})


def _predict_set(folder: Path, cases=CASES[:3], format_version: int = FORMAT_VERSION) -> Path:
    """A predict set's GRPO export written by hand, beside a manifest naming its train task."""
    folder.mkdir(parents=True)
    files = {"phone_number.h": "// phone-number\n"}
    rows = [PredictGrpoRow(item_id=f"i{n}", source_task="fixed26/phone-number", format_version=format_version,
                           prompt=prompt_messages(files, call), call=call, expected=exp, answer=ans, compare=APPROX)
            for n, (call, exp, ans, *_) in enumerate(cases)]
    (folder / GRPO_FILE).write_text("".join(r.model_dump_json() + "\n" for r in rows))
    (folder / "manifest.json").write_text(json.dumps({"content_hash": "x", "source_tasks": ["fixed26/phone-number"]}))
    return folder


def test_data_sets_load_by_environment_and_record_everything_trained_on(tmp_path, monkeypatch):
    toy = write_toy_curriculum(tmp_path / "curricula" / "toy", "green")
    pred = _predict_set(tmp_path / "curricula" / "ph")
    monkeypatch.chdir(tmp_path)
    data = load_training_data(["toy", "ph"])   # by name, each whichever file its folder holds
    assert data.sizes() == {"repair": 8, "predict": 3}
    assert data.trained_on_tasks == ["fixed26/phone-number", "toy-suite/colour"] and data.curriculum is None
    assert data.data == [str((toy / "grpo.jsonl").resolve()), str((pred / GRPO_FILE).resolve())]
    alone = load_training_data([str(pred / GRPO_FILE)])
    assert alone.sizes() == {"predict": 3} and alone.curriculum == pred.resolve()
    assert alone.dataset_hash != data.dataset_hash
    # One curriculum alone keeps the hash it had before runs could mix data.
    from harness.train.data import load_grpo

    assert load_training_data(["toy"]).dataset_hash == load_grpo("toy")[1].dataset_hash
    rows = schedule(data, {"repair": 0.5, "predict": 0.5}, 40, seed=0)
    assert {r["environment"] for r in rows} == {"repair", "predict"} and len(rows) == 40
    assert {PredictTarget.model_validate_json(r["target"]).call for r in rows if r["environment"] == "predict"} \
        == {c[0] for c in CASES[:3]}
    with pytest.raises(BadInput, match="given twice"):
        load_training_data(["toy", str(toy)])
    old = _predict_set(tmp_path / "old", format_version=0)
    with pytest.raises(BadInput, match=f"answer format 0, this harness reads format {FORMAT_VERSION}"):
        load_training_data([str(old)])


# --- training on a tiny model ------------------------------------------------------------------

PROMPTS, SAMPLES = 4, 4


def _grpo(base: Path, runs: Path, out: str, *data: Path | str, updates: int, extra: tuple[str, ...] = (),
          prompts: int = PROMPTS, samples: int = SAMPLES):
    curricula = [a for d in data for a in ("--curriculum", str(d))]
    return harness("train", "grpo", *curricula, "--base", str(base), "--out", out, "--runs-dir", str(runs),
                   "--updates", str(updates), "--prompts-per-step", str(prompts), "--samples", str(samples),
                   "--max-completion-length", "16", "--verifier", "exact", "--set", "grpo.micro_batch_size=16",
                   "--set", "grpo.temperature=0.1", *extra, *CPU)


@pytest.fixture(scope="module")
def world(tmp_path_factory, docker_sandbox):
    """A predict set from `harness predict build` on phone-number, the toy repair
    curriculum, a tiny base model and a private card folder."""
    from tests.tinymodel import build_tiny_model

    root = tmp_path_factory.mktemp("train-predict")
    built = harness("predict", "build", "--suite", "fixed26", "--tasks", "phone-number", "--mutants", "0", "--out", "ph",
                    "--root", str(root / "curricula"), "--sandbox", "docker", cwd=ROOT)
    assert built.returncode == 0, built.stderr
    with private_state(root / "state"):
        yield {"root": root, "predict": root / "curricula" / "ph", "toy": write_toy_curriculum(root / "toy", "green"),
               "base": build_tiny_model(root / "base"), "runs": root / "runs"}


STATUSES = {"right", "wrong", "malformed"}


@pytest.mark.slow
def test_grpo_step_on_a_predict_set(world):
    done = _grpo(world["base"], world["runs"], "pred", world["predict"], updates=1)
    assert done.returncode == 0, done.stderr
    run = world["runs"] / "train" / "pred"
    steps = steps_of(run / "log.jsonl")
    assert [s["step"] for s in steps] == [1]
    for s in steps:
        assert s["completions"] == PROMPTS * SAMPLES and set(s["environments"]) == {"predict"}
        assert set(s["statuses"]) <= STATUSES and sum(s["statuses"].values()) == PROMPTS * SAMPLES
        right = s["statuses"].get("right", 0)
        assert s["reward_mean"] == pytest.approx((right - (PROMPTS * SAMPLES - right)) / (PROMPTS * SAMPLES))
    manifest = json.loads((run / "run.json").read_text())
    assert manifest["trained_on_tasks"] == ["fixed26/phone-number"]
    assert manifest["data"] == [str((world["predict"] / GRPO_FILE).resolve())]
    assert (world["root"] / "state" / "adapters" / "pred@iter1.toml").is_file()
    print("predict-only steps:", [(s["reward_mean"], s["statuses"]) for s in steps])


@pytest.mark.slow
def test_a_joint_run_samples_by_share_and_scales_each_environments_reward(world):
    config = world["root"] / "mix.toml"
    # The paper's preset: predict drawn for 15% of the prompts, its reward x 0.8; seed 2's
    # draw puts both environments in one update.
    config.write_text('[grpo]\npreset = "self-execution-paper"\n[runtime]\nseed = 2\n')
    updates = 1
    done = _grpo(world["base"], world["runs"], "mix", world["toy"], world["predict"], updates=updates,
                 extra=("--config", str(config)))
    assert done.returncode == 0, done.stderr
    # The prompts the run was to train on, drawn again here from the same seed.
    data = load_training_data([str(world["toy"]), str(world["predict"])])
    planned = [r["environment"] for r in schedule(data, {"repair": 0.85, "predict": 0.15}, updates * PROMPTS, seed=2)]
    assert set(planned) == {"repair", "predict"}, planned   # the draw this test relies on mixes both
    steps = steps_of(world["runs"] / "train" / "mix" / "log.jsonl")
    assert len(steps) == updates
    for k, s in enumerate(steps):
        want = Counter(planned[k * PROMPTS:(k + 1) * PROMPTS])
        assert {env: f["completions"] for env, f in s["environments"].items()} == \
            {env: n * SAMPLES for env, n in want.items()}, (k, want)
        for env, f in s["environments"].items():
            assert sum(f["statuses"].values()) == f["completions"]
            assert set(f["statuses"]) <= (STATUSES if env == "predict" else {"ok", "malformed"})
        # Every predict reward is the judge's +1 or -1 times 0.8; repair's are unscaled.
        if "predict" in s["environments"]:
            f = s["environments"]["predict"]
            right = f["statuses"].get("right", 0)
            assert f["reward_mean"] == pytest.approx(0.8 * (2 * right - f["completions"]) / f["completions"])
    print("mixed steps:", [{e: (f["completions"], f["reward_mean"]) for e, f in s["environments"].items()} for s in steps])
    assert "repair" in done.stderr and "predict" in done.stderr


@pytest.mark.slow
def test_grpo_step_on_the_two_turn_environment(world):
    """One update of `rlef` on phone-number: the tiny model's first answers run the public
    tests in Docker, the second turn is generated after their results, the final code judged."""
    cpp = write_cpp_curriculum(world["root"] / "cpp", ROOT / "suites" / "fixed26" / "phone-number")
    done = _grpo(world["base"], world["runs"], "rlef", f"rlef:{cpp}", updates=1, prompts=2, samples=2,
                 extra=("--set", "grpo.micro_batch_size=4"))
    assert done.returncode == 0, done.stderr
    steps = steps_of(world["runs"] / "train" / "rlef" / "log.jsonl")
    assert len(steps) == 1 and set(steps[0]["environments"]) == {"rlef"} and steps[0]["completions"] == 4
    assert set(steps[0]["statuses"]) <= {"ok", "malformed"}
    # The random model writes no file, the stub does not build, and every exchange goes on.
    assert steps[0]["environments"]["rlef"]["second_turns"] == 4
    # The run records its data as `--resume` gives it again: still the two-turn environment.
    data = json.loads((world["runs"] / "train" / "rlef" / "run.json").read_text())["data"]
    assert data == [f"rlef:{(cpp / 'grpo.jsonl').resolve()}"] and load_training_data(data).sizes() == {"rlef": 2}
    print("rlef step:", steps[0]["reward_mean"], steps[0]["statuses"])


@pytest.mark.parametrize("weights, message", [
    ("{nope = 1}", "grpo.environments.nope.[key]: input should be 'repair', 'predict', 'tests' or 'rlef'"),
    ("{repair = 0.2, predict = 0.8}", "grpo.environments gives repair a share but no repair data was given"),
    ("{predict = 0}", "grpo.environments.predict.share: input should be greater than 0"),
    ("{predict = {share = 1, reward_scale = 0.8}}", "reward_scale has no effect when scale_rewards is 'group'"),
])
def test_bad_weights_are_one_line_exit_2_and_leave_no_run(tmp_path, weights, message):
    from typer.testing import CliRunner

    from harness.cli import app

    pred = _predict_set(tmp_path / "ph")
    done = CliRunner().invoke(app, ["train", "grpo", "--out", "x", "--curriculum", str(pred), "--base", "b",
                                    "--device", "cpu", "--set", f"grpo.environments={weights}",
                                    "--runs-dir", str(tmp_path / "runs")])
    assert done.exit_code == 2, done.output
    assert message in done.stderr and len(done.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "runs").exists()
