"""Training settings, data files and rewards, without training: the study's defaults reach
TRL as the study ran them, overrides apply in order, bad settings and bad rows are one
line, and the reward function reads answers and counts what the log reports."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from harness.agents.editformat import render_whole
from harness.errors import BadInput
from harness.train.config import RuntimeSettings, TrainConfig, load_config, parse_assignment, use_bf16
from harness.training_files import GrpoRow
from harness.train.data import find_data_file, load_grpo, load_sft
from harness.train.grpo import grpo_args
from harness.train.rewards import ExactVerifier, GrpoReward, RepairJudge

from tests.train_support import write_toy_curriculum, write_toy_task

HARNESS = str(Path(sys.executable).parent / "harness")


def test_defaults_are_the_studys_run_and_reach_grpo_config_as_such(tmp_path):
    cfg = TrainConfig()
    assert (cfg.lora.rank, cfg.lora.alpha) == (16, 32)
    assert (cfg.grpo.learning_rate, cfg.grpo.warmup_ratio, cfg.grpo.beta, cfg.grpo.updates) == (3e-5, 0.1, 0.1, 20)
    assert (cfg.grpo.prompts_per_step, cfg.grpo.samples_per_prompt, cfg.grpo.global_batch) == (8, 32, 256)
    args = grpo_args(cfg, tmp_path, "cpu", bf16=False)
    assert args.num_generations == 32
    assert args.per_device_train_batch_size * args.gradient_accumulation_steps == 256
    assert args.generation_batch_size == 256  # one generation batch per update: on-policy
    assert (args.max_steps, args.beta, args.learning_rate, args.warmup_steps) == (20, 0.1, 3e-5, 0.1)
    assert args.save_steps == 1 and args.logging_steps == 1


def test_bf16_only_where_the_device_supports_it():
    assert use_bf16(RuntimeSettings(), "cpu") is False
    with pytest.raises(BadInput, match="does not support"):
        use_bf16(RuntimeSettings(precision="bf16"), "cpu")


def test_toml_then_overrides_in_order_with_types_kept(tmp_path):
    toml = tmp_path / "run.toml"
    toml.write_text("[grpo]\nbeta = 0.05\nupdates = 7\n[lora]\nrank = 8\n")
    cfg = load_config(toml, [parse_assignment("grpo.updates=9"), parse_assignment("runtime.verifier=exact"),
                             parse_assignment("lora.target_modules=['q_proj', 'v_proj']")])
    assert (cfg.grpo.beta, cfg.grpo.updates, cfg.lora.rank, cfg.runtime.verifier) == (0.05, 9, 8, "exact")
    assert cfg.lora.target_modules == ["q_proj", "v_proj"]
    assert cfg.lora.alpha == 32  # untouched defaults stay


@pytest.mark.parametrize("sets, message", [
    (["grpo.nope=1"], "grpo.nope: unknown setting"),
    (["grpo.beta=-1"], "grpo.beta: input should be greater than or equal to 0"),
    (["runtime.vllm={port = 1}"], "only, not 'port'"),
    (["justakey"], "section.key=value"),
])
def test_bad_settings_are_one_line(sets, message):
    with pytest.raises(BadInput, match=message):
        load_config(None, [parse_assignment(s) for s in sets])


def test_vllm_generation_needs_vllm_and_passes_its_options_through(tmp_path):
    cfg = load_config(None, [parse_assignment("runtime.generation=vllm-server"),
                             parse_assignment("runtime.vllm={vllm_server_base_url = 'http://gpu0:8000'}")])
    try:
        import vllm  # noqa: F401
    except ImportError:
        with pytest.raises(BadInput, match="vLLM is not installed"):
            grpo_args(cfg, tmp_path, "cpu", bf16=False)
    else:
        args = grpo_args(cfg, tmp_path, "cpu", bf16=False)
        assert (args.use_vllm, args.vllm_mode, args.vllm_server_base_url) == (True, "server", "http://gpu0:8000")


def test_a_batch_that_does_not_split_into_micro_batches_is_refused(tmp_path):
    cfg = load_config(None, [parse_assignment("grpo.micro_batch_size=6")])
    with pytest.raises(BadInput, match="not a multiple of micro_batch_size"):
        grpo_args(cfg, tmp_path, "cpu", bf16=False)


def test_curricula_load_by_folder_file_or_name_and_record_what_they_trained_on(tmp_path, monkeypatch):
    cur = write_toy_curriculum(tmp_path / "curricula" / "toy", "green")
    monkeypatch.chdir(tmp_path)
    assert find_data_file("toy", "grpo.jsonl") == cur / "grpo.jsonl"
    rows, source = load_sft(str(cur))
    assert len(rows) == 64 and source.trained_on_tasks == ["toy-suite/colour"] and source.curriculum == cur.resolve()
    _, by_file = load_sft(str(cur / "sft.jsonl"))
    assert by_file.dataset_hash == source.dataset_hash
    grows, gsource, tasks = load_grpo("toy")
    assert tasks == {"colour": (cur / "colour").resolve()}
    # The reward depends on the task's files, so the dataset hash covers them.
    (cur / "colour" / ".meta" / "example.txt").write_text("blue\n")
    assert load_grpo("toy")[1].dataset_hash != gsource.dataset_hash
    with pytest.raises(BadInput, match="no curriculum named 'nope'"):
        find_data_file("nope", "grpo.jsonl")


def test_bad_rows_name_the_file_and_line(tmp_path):
    cur = write_toy_curriculum(tmp_path / "toy", "green")
    lines = (cur / "sft.jsonl").read_text().splitlines()
    row = json.loads(lines[2])
    row["messages"] = row["messages"][:1]  # the answer is missing
    lines[2] = json.dumps(row)
    (cur / "sft.jsonl").write_text("\n".join(lines) + "\n")
    with pytest.raises(BadInput, match=r"sft.jsonl:3: messages"):
        load_sft(str(cur))
    bad = GrpoRow(task_id="t", source_task="s/t", task_path="missing-task", prompt=[{"role": "user", "content": "x"}])
    (cur / "grpo.jsonl").write_text(bad.model_dump_json() + "\n")
    with pytest.raises(BadInput, match="missing-task"):
        load_grpo(str(cur))


def test_reward_function_reads_answers_scores_them_and_counts_what_the_log_reports(tmp_path):
    cur = write_toy_curriculum(tmp_path / "toy", "green")
    task = str(cur / "colour")
    # A task with two files in the chat, where a block without a file name is one Aider rejects.
    pair = write_toy_task(tmp_path / "pair" / "colour", "green")
    (pair / "other.txt").write_text("?\n")
    (pair / ".meta" / "config.json").write_text(json.dumps(
        {"files": {"solution": ["answer.txt", "other.txt"], "test": [], "example": [".meta/example.txt"]}}))
    answers = [render_whole({"answer.txt": "green"}), "```\ngreen\n```",   # a nameless block: the only chat file
               render_whole({"answer.txt": "red"}), "no listing at all",    # writes nothing: the starting file stays
               "```\ngreen\n```"]                                         # nameless, two chat files: malformed
    paths = [task] * 4 + [str(pair)]
    completions = [[{"role": "assistant", "content": a}] for a in answers]
    metrics: dict[str, float] = {}
    envs = ["repair"] * 5
    reward = GrpoReward({"repair": RepairJudge(ExactVerifier())})
    direct = reward(prompts=[None] * 5, completions=completions, environment=envs, target=paths,
                    log_metric=lambda k, v: metrics.__setitem__(k, v))
    assert direct == [1.0, 1.0, -1.0, -1.0, -1.0]
    assert metrics == {"pass_rate": 0.4, "malformed_rate": 0.2}
    # Submitted right after generation, then asked for: the same rewards, from the background.
    reward.submit(completions, envs, paths)
    assert reward(prompts=[None] * 5, completions=completions, environment=envs, target=paths) == direct
    stats = reward.take_stats()
    assert stats.passed == 4 and stats.malformed == 2 and dict(stats.statuses) == {"ok": 8, "malformed": 2}
    assert reward.take_stats().rewards == []
    reward.close()


@pytest.mark.parametrize("args, message", [
    (["train", "grpo", "--out", "x"], "--curriculum and --base are required"),
    (["train", "grpo", "--out", "x", "--resume"], "no training run named x"),
    (["train", "grpo", "--out", "x", "--resume", "--beta", "0.2"], "--resume continues with the run's own config"),
    (["train", "sft", "--data", "nope.jsonl", "--base", "b", "--out", "x"], "nope.jsonl: no such file"),
    (["train", "dpo", "--curriculum", "nope/preference.jsonl", "--base", "b", "--out", "x"],
     "nope/preference.jsonl: no such file"),
    (["train", "dpo", "--curriculum", "c", "--base", "b", "--out", "x", "--set", "dpo.beta=0"], "dpo.beta"),
    (["train", "grpo", "--out", "x", "--curriculum", "c", "--base", "b", "--set", "grpo.nope=1"], "grpo.nope: unknown setting"),
])
def test_cli_bad_input_is_one_line_and_exit_2(tmp_path, monkeypatch, args, message):
    from typer.testing import CliRunner

    from harness.cli import app

    monkeypatch.chdir(tmp_path)
    done = CliRunner().invoke(app, [*args, "--runs-dir", str(tmp_path)])
    assert done.exit_code == 2, done.output
    assert message in done.stderr and "Traceback" not in done.output
    assert len(done.stderr.strip().splitlines()) == 1


@pytest.mark.slow
def test_sft_whose_answers_all_lie_beyond_max_length_is_one_line(tmp_path):
    from tests.tinymodel import build_tiny_model

    from tests.train_support import CPU, private_state, write_toy_curriculum

    base = build_tiny_model(tmp_path / "base")
    data = write_toy_curriculum(tmp_path / "toy", "green", sft_rows=8)
    with private_state(tmp_path / "state"):
        done = subprocess.run([HARNESS, "train", "sft", "--data", str(data), "--base", str(base), "--out", "cut",
                               "--runs-dir", str(tmp_path / "runs"), "--set", "sft.max_length=4", *CPU],
                              capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    assert "sft.max_length=4" in done.stderr and "Traceback" not in done.stderr


def test_the_papers_preset_gives_shares_and_scales_apart_and_bare_numbers_stay_shares(tmp_path):
    toml = tmp_path / "paper.toml"
    toml.write_text('[grpo]\npreset = "self-execution-paper"\n')
    paper = load_config(toml).grpo
    assert paper.shares() == {"repair": 0.85, "predict": 0.15}
    assert paper.reward_scales() == {"repair": 1.0, "predict": 0.8} and paper.scale_rewards == "batch"
    rlef = load_config(None, [parse_assignment('grpo.preset="self-execution-paper-rlef"'),
                              parse_assignment("grpo.environments.predict.share=0.3")]).grpo
    assert rlef.shares() == {"rlef": 0.75, "predict": 0.3} and rlef.reward_scales()["predict"] == 0.8
    # A config written before scales existed: its numbers are shares, every reward unscaled.
    old = load_config(None, [parse_assignment("grpo.environments={repair = 0.2, predict = 0.8}")]).grpo
    assert old.shares() == {"repair": 0.2, "predict": 0.8} and set(old.reward_scales().values()) == {1.0}
    # What a run stores reads back the same (a resumed run validates its stored config again).
    assert TrainConfig.model_validate_json(load_config(toml).model_dump_json()).grpo == paper
