"""The gold model through the whole path (real Aider, real sandbox): every task passes in
round 1 in both edit formats, the manifest carries every hash, and the agent needs no
network beyond the model's endpoint."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from harness.agents.registry import load_profile
from harness.contract import load_contract
from harness.records import TestMain, TrialOutcome
from harness.executor.local import NAME as EXECUTOR
from harness.run import run
from harness.run.config import RunConfig
from harness.store import RunFolder
from harness.suite import find_suite

from tests.run_support import make_suite

pytestmark = [pytest.mark.slow, pytest.mark.docker]

SAMPLE = ["binary-search-tree", "clock", "meetup", "zebra-puzzle"]  # header-only, class, Boost, search


@pytest.fixture(scope="module")
def docker_ready():
    from tests.conftest import make_backend

    make_backend("docker")


@pytest.mark.parametrize("agent", ["aider-whole", "aider-diff"])
def test_gold_passes_fixed26_tasks_in_round_1(agent, docker_ready, tmp_path):
    summary = run(RunConfig(suite="fixed26", models=["gold"], tasks=SAMPLE, trials=1, agent=agent, workers=2,
                            sandbox="docker", runs_dir=tmp_path, run_id="gold"))
    folder = RunFolder(summary.run_dir)
    for slug in SAMPLE:
        r = folder.read_result("gold", slug, 1)
        assert (r.outcome, r.passed_round, r.tampered) == (TrialOutcome.passed, 1, []), (slug, r.infra_error)
        assert r.rounds[0].counters.malformed_responses == 0
        assert r.rounds[0].test_report.test_main is TestMain.harness
    (s,) = summary.configs
    assert (s.first_round_mean, s.two_round_mean, s.infra_errors) == (4, 4, 0)

    suite, profile, contract = find_suite("fixed26"), load_profile(agent), load_contract("original")
    m = folder.read_manifest()
    assert m.suite_hash == suite.content_hash and m.tasks == SAMPLE
    assert m.task_hashes == {slug: suite.task(slug).content_hash for slug in SAMPLE}
    assert m.image and m.image_digest and m.sandbox.startswith("docker")
    assert (m.executor, m.workers) == (EXECUTOR, 2)
    (cfg,) = m.configs
    assert (cfg.agent_hash, cfg.edit_format, cfg.contract_hash) == (profile.content_hash, profile.edit_format,
                                                                     contract.content_hash)
    assert r.prompt_hash == contract.prompt_hash(suite.task(SAMPLE[-1]))


def test_the_agent_needs_no_network(docker_ready, tmp_path):
    """In a network namespace with only loopback, a run still passes: Aider fetches no
    model metadata, sends no analytics and checks no version."""
    if not (shutil.which("unshare") and shutil.which("ip")) or \
            subprocess.run(["unshare", "-n", "true"], capture_output=True).returncode != 0:
        pytest.skip("cannot make a network namespace here (needs root, unshare and ip)")
    suite = make_suite(tmp_path)
    harness = Path(sys.executable).parent / "harness"
    script = (f"ip link set lo up && {harness} run --suite {suite} --model gold --sandbox docker "
              f"--runs-dir {tmp_path / 'runs'} --run-id offline")
    done = subprocess.run(["unshare", "-n", "sh", "-c", script], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    result = RunFolder(tmp_path / "runs" / "offline").read_result("gold", "sum-of-squares", 1)
    assert result.passed_round == 1


def test_the_plain_command_from_a_working_folder(docker_ready, tmp_path):
    """No --runs-dir: results land in ./runs of the folder the command runs in."""
    suite = make_suite(tmp_path)
    harness = Path(sys.executable).parent / "harness"
    done = subprocess.run([str(harness), "run", "--suite", str(suite), "--model", "gold", "--trials", "1"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    (result,) = (tmp_path / "runs").glob("*/gold/sum-of-squares/trial-1/result.json")
    assert '"passed_round": 1' in result.read_text()
    assert "1.00/1 (100.0%)" in done.stdout
