"""`harness loop` end to end on CPU: the tiny model served by the local backend, Aider, the
Docker sandbox, the curriculum builder, GRPO with the C++ verifier, and the lineage report,
on a three-task C++ suite. The loop starts from an SFT adapter that answers every task with
`square`'s reference (tests/loop_support.py): `square` passes, `cube` and `twice` fail to
build, `twice` is held out, so each curriculum of failures holds one repair task of `cube`
(the first iteration adds `--synth` repair tasks from mutants of `square` and `cube`). GRPO
takes one update at a learning rate of 1e-6, so every checkpoint answers greedily as its
parent did, the pre-registered bar fails on held-in and held-out tasks alike, and the loop
stops after two iterations of three. Then a loop killed twice, between two stages and in
the middle of an evaluation with its server up, resumes to the same end."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from harness.adapter_card import find_card, verify_card
from harness.curriculum.exports import read_manifest
from harness.loop.lineage import read_lineage
from harness.outcomes import load_run
from harness.train.data import load_grpo

from tests.loop_support import build_short_sighted_model, sft_square, write_sft_data, write_toy_suite
from tests.train_support import HARNESS, free_port, harness, private_state

pytestmark = [pytest.mark.slow, pytest.mark.docker, pytest.mark.timeout(3600)]


@dataclass
class World:
    root: Path
    suite: Path
    base: Path
    runs: Path
    state: Path


@pytest.fixture(scope="module")
def world(tmp_path_factory, docker_sandbox):
    root = tmp_path_factory.mktemp("loop")
    with private_state(root / "state") as state:
        suite = write_toy_suite(root)
        base = build_short_sighted_model(root / "base")
        runs = root / "runs"
        started = time.monotonic()
        sft = sft_square(base, write_sft_data(suite, root / "warmup" / "sft.jsonl"), "toy-square", runs)
        assert sft.returncode == 0, sft.stderr[-3000:]
        print(f"warm-up SFT of the starting adapter: {time.monotonic() - started:.0f} s")
        yield World(root, suite, base, runs, state)


def write_config(path: Path) -> Path:
    """Tiny settings for every stage: a local server on CPU, greedy answers, small
    curricula, one GRPO update of 4 samples on CPU."""
    path.write_text(f"""
[eval]
workers = 2
sampling = {{ temperature = 0.0, max_tokens = 96 }}

[curriculum]
max_per_task = 1
controls = 1
mutants_per_task = 4
synth_mutants_per_task = 6

[serve]
backend = "local"
device = "cpu"
port = {free_port()}

[train.grpo]
updates = 1
prompts_per_step = 1
samples_per_prompt = 4
micro_batch_size = 4
max_completion_length = 96
learning_rate = 1e-6
beta = 0.0
temperature = 0.5

[train.runtime]
device = "cpu"
gradient_checkpointing = false
cpu_threads = 1
""")
    return path


def loop_args(world: World, loop_id: str, iterations: int, trials: int, *extra: str) -> list[str]:
    return ["loop", "--suite", str(world.suite), "--base", str(world.base), "--init-adapter", "toy-square",
            "--iterations", str(iterations), "--trials", str(trials), "--hold-out", "twice",
            "--config", str(write_config(world.root / f"{loop_id}.toml")), "--loop-id", loop_id,
            "--runs-dir", str(world.runs), *extra]


def solved_in_round_1(world: World, run_id: str) -> dict[str, int]:
    frame = load_run(world.runs / run_id).frame
    assert frame["done"].all()
    return {task: int(rows["round1"].sum()) for task, rows in frame.groupby("task")}


def served() -> list:
    from harness.serve.endpoint import load_records

    return load_records()


def test_the_loop_runs_to_its_bar_and_reports_its_lineage(world):
    started = time.monotonic()
    done = harness(*loop_args(world, "e2e", 3, 2, "--bar", "0.5", "--synth"), timeout=1800)
    seconds = time.monotonic() - started
    assert done.returncode == 0, done.stderr[-5000:]
    lineage = read_lineage("e2e", world.runs)
    print(f"loop e2e (3 evaluations, 3 curricula, 2 trainings): {seconds:.0f} s; seconds per stage: "
          + "; ".join(f"iteration {it.index} {it.seconds}" for it in lineage.iterations))
    assert lineage.status == "stopped" and "failed 2 iterations in a row" in lineage.stop_reason
    assert [it.index for it in lineage.iterations] == [0, 1, 2] and lineage.server is None
    its = lineage.iterations
    assert [(it.adapter, it.parent) for it in its] == [("toy-square", None), ("e2e-it1", "toy-square"),
                                                      ("e2e-it2", "e2e-it1")]
    assert all(it.done == it.stages() for it in its)
    for it in its[1:]:
        cur = it.curricula[0]
        manifest = read_manifest(Path(cur.path))
        assert cur.content_hash == manifest.content_hash and cur.made_from == "runs"
        # square never failed and twice is held out: only cube's failures become repair tasks.
        assert manifest.source_tasks == ["toy3/cube"]
        assert all(t.startswith("cube-") for t in manifest.repair_tasks)
        assert set(it.seconds) == {"curriculum", "train", "eval", "bar"}
        assert manifest.runs[0].run_id == its[it.index - 1].eval_run
        card, card_file = find_card(it.adapter)
        verify_card(card, card_file)
        assert card.training.parent == it.parent and card.training.dataset_hash == it.dataset_hash
        assert card.training.trained_on_tasks == it.trained_on_tasks and card.training.source_run == it.train_run
        assert it.checkpoints == [f"{it.adapter}@iter1"]
        assert it.eval_model == f"local/{it.adapter}"
    # --synth adds mutants of the references (not of the held-out one) in the first iteration
    # only; training takes both curricula's prompts from one file.
    runs_made, synth = its[1].curricula
    assert synth.made_from == "synth" and synth.repair_tasks > 0
    assert set(synth.source_tasks) <= {"toy3/cube", "toy3/square"}
    assert its[1].trained_on_tasks == sorted({"toy3/cube", *synth.source_tasks})
    rows, _, paths = load_grpo(its[1].train_data)
    assert len(rows) == runs_made.repair_tasks + synth.repair_tasks
    assert {p.parent.name for p in paths.values()} == {runs_made.name, synth.name}
    assert len(its[2].curricula) == 1 and its[2].trained_on_tasks == ["toy3/cube"]
    assert its[2].train_data == its[2].curricula[0].path
    assert not list((world.runs / "loops" / "e2e" / "curricula").glob("*/twice*"))

    # Every checkpoint answers as the starting adapter did: square solved, the others not.
    for it in its:
        assert solved_in_round_1(world, it.eval_run) == {"cube": 0, "square": 2, "twice": 0}
        assert it.first_round_mean == 1.0
    for it in its[1:]:
        held_in, held_out = it.bar.scopes
        assert (held_in.scope, held_in.tasks, held_out.scope, held_out.tasks) == \
            ("held-in", ["cube", "square"], "held-out", ["twice"])
        assert held_in.difference == held_out.difference == 0.0 and not it.bar.passed
    assert "e2e-it1" in done.stdout and "stopped early" in done.stdout
    assert served() == []  # every server the loop started was stopped

    report = world.root / "reports" / "lineage.json"
    shown = harness("report", "--lineage", "e2e", "--runs-dir", str(world.runs), "--resamples", "1000",
                    "--format", "json", "--out", str(report))
    assert shown.returncode == 0, shown.stderr
    doc = json.loads(report.read_text())
    assert doc["kind"] == "lineage" and [c["checkpoint"] for c in doc["data"]["checkpoints"]] == \
        ["toy-square", "e2e-it1", "e2e-it2"]
    per_task = {(r["task"], r["checkpoint"]): r["round1"] for r in doc["data"]["tasks"]}
    assert per_task == {(t, c): 2 if t == "square" else 0 for t in ("cube", "square", "twice")
                        for c in ("toy-square", "e2e-it1", "e2e-it2")}
    # square is in the starting adapter's training set, cube in the loop's curricula.
    assert doc["data"]["seen_in_training"] == ["cube", "square"] and doc["data"]["held_out"] == ["twice"]
    scopes = {(s["config"], s["tasks_in"]) for s in doc["data"]["summaries"]}
    assert ("e2e-it2", "seen in training") in scopes and ("e2e-it2", "unseen in training") in scopes
    assert any("improved 0 task(s), declined 0" in line for line in doc["lead"])
    assert doc["data"]["first_to_last"]["base"] == "toy-square" and doc["data"]["first_to_last"]["new"] == "e2e-it2"

    markdown = world.root / "reports" / "lineage.md"
    assert harness("report", "--lineage", "e2e", "--runs-dir", str(world.runs), "--resamples", "1000",
                   "--out", str(markdown)).returncode == 0
    plot = markdown.with_name("lineage-lineage.png")
    assert plot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and plot.name in markdown.read_text()


def _wait_for(what: str, ready, proc: subprocess.Popen, log: Path, timeout_s: float = 900) -> None:
    deadline = time.monotonic() + timeout_s
    while not ready():
        assert proc.poll() is None, f"the loop ended before {what}: {log.read_text()[-3000:]}"
        assert time.monotonic() < deadline, f"no {what} within {timeout_s:.0f} s"
        time.sleep(0.05)


def _start(args: list[str], log: Path) -> subprocess.Popen:
    return subprocess.Popen([HARNESS, *args], stdout=subprocess.DEVNULL, stderr=open(log, "w"),
                            start_new_session=True, env=os.environ.copy())


def _kill(proc: subprocess.Popen) -> None:
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()


def _lineage_has(world: World, loop_id: str, test) -> bool:
    try:
        return test(read_lineage(loop_id, world.runs))
    except Exception:  # not written yet
        return False


def test_a_killed_loop_resumes_where_it_stopped(world):
    args = loop_args(world, "crash", 1, 1)
    log = world.root / "crash-1.log"
    first = _start(args, log)
    try:
        # Killed right after the curriculum stage is recorded: the training stage has begun.
        _wait_for("a recorded curriculum", lambda: _lineage_has(
            world, "crash", lambda lineage: len(lineage.iterations) > 1 and "curriculum" in lineage.iterations[1].done), first, log)
    finally:
        _kill(first)
    before = read_lineage("crash", world.runs)
    assert before.status == "running" and before.iterations[1].done == ["curriculum"]
    results = sorted((world.runs / "crash-eval0").rglob("result.json"))
    assert len(results) == 3
    stamps = {p: p.stat().st_mtime_ns for p in results}
    curriculum = Path(before.iterations[1].curricula[0].path) / "manifest.json"
    written = curriculum.read_bytes()

    log = world.root / "crash-2.log"
    second = _start(["loop", "--resume", "crash", "--runs-dir", str(world.runs)], log)
    try:
        # Killed in the middle of the new checkpoint's evaluation, its server up.
        _wait_for("an evaluation under way", lambda: (world.runs / "crash-eval1" / "manifest.json").is_file()
                  and _lineage_has(world, "crash", lambda lineage: lineage.server is not None and lineage.server.pid is not None),
                  second, log)
    finally:
        _kill(second)
    left = read_lineage("crash", world.runs).server
    assert left.pid and os.path.exists(f"/proc/{left.pid}"), "the server outlived the loop (its own session)"

    resumed = harness("loop", "--resume", "crash", "--runs-dir", str(world.runs), timeout=1800)
    assert resumed.returncode == 0, resumed.stderr[-5000:]
    assert f"stopping the server it left on port {left.port}" in resumed.stderr
    from harness.serve.launch import pid_alive

    assert not pid_alive(left.pid) and served() == []
    after = read_lineage("crash", world.runs)
    assert after.status == "finished" and after.stop_reason is None
    assert [it.done for it in after.iterations] == [["eval"], ["curriculum", "train", "eval", "bar"]]
    # Nothing finished before a kill was done again.
    assert {p: p.stat().st_mtime_ns for p in results} == stamps
    assert curriculum.read_bytes() == written
    assert after.iterations[1].curricula == before.iterations[1].curricula
    assert solved_in_round_1(world, "crash-eval1") == {"cube": 0, "square": 1, "twice": 0}
    card, card_file = find_card("crash-it1")
    verify_card(card, card_file)
    assert card.training.parent == "toy-square"
    ends = [json.loads(line) for line in (world.runs / "train" / "crash-it1" / "log.jsonl").read_text().splitlines()
            if json.loads(line)["kind"] == "end"]
    assert len(ends) == 1 and ends[0]["steps"] == 1


def test_a_test_writing_loop_exports_its_suites_trains_and_evaluates_the_new_adapter(world):
    config = write_config(world.root / "tests-loop.toml")
    # One round per trial, a small mutant sample, one GRPO update of two samples.
    text = config.read_text().replace("[eval]\n", "[eval]\nrounds = 1\n").replace(
        "samples_per_prompt = 4\nmicro_batch_size = 4", "samples_per_prompt = 2\nmicro_batch_size = 2")
    config.write_text(text + "\n[tests]\nmutant_cap = 2\n")
    done = harness("loop", "--kind", "tests", "--suite", str(world.suite), "--base", str(world.base), "--init-adapter",
                   "toy-square", "--tasks", "square", "--iterations", "1", "--trials", "1", "--config", str(config),
                   "--loop-id", "tw", "--runs-dir", str(world.runs), timeout=1200)
    assert done.returncode == 0, done.stderr[-5000:]
    lineage = read_lineage("tw", world.runs)
    assert lineage.status == "finished" and lineage.config.kind == "tests" and lineage.config.eval.contract == "tests"
    first, second = lineage.iterations
    for it in (first, second):
        assert json.loads((world.runs / it.eval_run / "manifest.json").read_text())["kind"] == "tests"
    (cur,) = second.curricula
    assert cur.made_from == "tests" and cur.source_tasks == ["toy3/square"] and cur.repair_tasks == 1
    assert second.train_data.endswith("grpo-tests.jsonl") and second.done == second.stages()
    card, card_file = find_card(second.adapter)
    verify_card(card, card_file)
    assert card.training.parent == "toy-square" and card.training.config["kind"] == "grpo"
    assert second.eval_model == f"local/{second.adapter}" and second.trained_on_tasks == ["toy3/square"]
