"""`--executor ray` on a real two-node Ray cluster on this machine (tests/ray_cluster.py),
with the real Docker sandbox and the real Aider driver on every node: gold passes all of
fixed26, trial by trial as the local executor passes a sample of it; suite validation runs
with mutants; a verify batch of two tasks gives the local verdicts; a unit's error is that
unit's result, the others delivered; a curriculum's
validation keeps the local exercises; a provider's rate limit
is one pace for both nodes; SIGTERM stops every node and leaves no container; a trial cut
after round 1 continues on a node from round 1; and a node whose raylet is killed mid-run
costs its trial a retry elsewhere, every trial done exactly once. One cluster serves the
file; the node-killing test runs last, as it leaves one node."""

from __future__ import annotations

import os
import socket
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from harness.curriculum import SynthConfig, synthesize
from harness.executor import ExecutorSettings, make_executor
from harness.fs import read_files
from harness.gold import reference_answer
from harness.records import TrialOutcome
from harness.run import run
from harness.run.config import RunConfig
from harness.store import RunFolder
from harness.suite import find_suite
from harness.suite_validation import RunKind, validate_suite
from harness.task import load_task
from harness.verify import verify_batch

from tests.conftest import ROOT, interruptible, make_backend
from tests.run_support import fast_profile, make_suite
from tests.scripted_model import Script, ScriptedModel

pytestmark = [pytest.mark.slow]

HARNESS = Path(sys.executable).parent / "harness"
FIXED26 = ROOT / "suites" / "fixed26"


@pytest.fixture(scope="module")
def cluster():
    make_backend("docker")  # skips, saying why, without a Docker engine and the image
    ray = pytest.importorskip("ray", reason="the ray extra is not installed (pip install -e '.[ray]')")
    from tests.ray_cluster import LocalCluster

    c = LocalCluster(cpus=(1, 1), sandboxes=(1, 1)).start()
    try:
        # The test process joins once: every executor below uses this connection.
        ray.init(address=c.address, logging_level="ERROR", log_to_driver=False, configure_logging=False)
        yield c
    finally:
        ray.shutdown()
        c.stop()


@pytest.fixture(scope="module")
def on_ray(cluster) -> ExecutorSettings:
    return ExecutorSettings(kind="ray", address=cluster.address)


def containers_of(run_id: str) -> list[str]:
    """Sandbox containers any node left behind for a run (sessions are labelled with the
    trial that opened them)."""
    got = subprocess.run(["docker", "ps", "-a", "--filter", "label=harness.sandbox", "--format", "{{.Label \"harness.label\"}}"],
                         capture_output=True, text=True, check=True)
    return [line for line in got.stdout.splitlines() if line.startswith(f"{run_id} ")]


def trial_facts(run_dir: Path) -> dict:
    """What a report reads of each trial, without times."""
    folder = RunFolder(run_dir)
    m = folder.read_manifest()
    out = {}
    for cfg in m.configs:
        for task in m.tasks:
            for k in range(1, m.trials + 1):
                r = folder.read_result(cfg.name, task, k)
                out[(cfg.name, task, k)] = (
                    r.outcome, r.passed_round, r.tampered, r.prompt_hash, r.task_hash,
                    [(n.round, n.counters.model_dump(), n.edited_files, n.created_files,
                      [(t.name, t.status) for t in n.test_report.tests], n.test_report.test_main) for n in r.rounds],
                )
    return out


# One task of each kind of build (threads, Boost, TBB, a search, a class over .h and .cpp,
# a header-only template, a verifier's task): the local run to compare with, which the
# test command's time allows for a sample of fixed26 only.
SAMPLE = ["bank-account", "gigasecond", "parallel-letter-frequency", "zebra-puzzle", "clock", "binary-search-tree",
          "phone-number"]


@pytest.mark.docker
def test_gold_fixed26_on_ray_gives_the_local_results(on_ray, tmp_path):
    common = dict(suite="fixed26", models=["gold"], trials=1, sandbox="docker", runs_dir=tmp_path)
    on_cluster = run(RunConfig(**common, run_id="ray", executor=on_ray))
    here = run(RunConfig(**common, tasks=SAMPLE, run_id="local", workers=2, executor=ExecutorSettings(kind="local")))
    (s,) = on_cluster.configs
    assert (s.first_round_mean, s.infra_errors, s.missing) == (26, 0, 0)
    ray_facts, local_facts = trial_facts(on_cluster.run_dir), trial_facts(here.run_dir)
    assert {k: v for k, v in ray_facts.items() if k[1] in SAMPLE} == local_facts
    assert all(v[:2] == (TrialOutcome.passed, 1) for v in ray_facts.values())
    ray_m, local_m = (RunFolder(r.run_dir).read_manifest() for r in (on_cluster, here))
    assert ray_m.executor.startswith("ray cluster (2 nodes") and (ray_m.workers, local_m.workers) == (2, 2)
    differ = {"run_id", "created_at", "finished_at", "executor", "tasks", "task_hashes"}
    assert ray_m.model_dump(exclude=differ) == local_m.model_dump(exclude=differ)
    assert ray_m.task_hashes == {t.slug: t.content_hash for t in find_suite("fixed26").tasks}
    # Every trial folder holds what a local one holds.
    for folder in (on_cluster.run_dir, here.run_dir):
        assert sorted(p.name for p in (folder / "gold" / "clock" / "trial-1").iterdir()) == [
            "agent.log", "aider.chat.md", "result.json", "round-1"]
    assert containers_of("ray") == []


@pytest.mark.docker
def test_suite_validation_on_ray(on_ray):
    suite = find_suite("fixed26")
    tasks = ["clock", "phone-number", "space-age"]
    with make_executor(on_ray, sandbox="docker") as executor:
        v = validate_suite(suite, executor, tasks=tasks, mutants=True, mutant_cap=3)
    assert [t.slug for t in v.tasks] == tasks and v.broken == [] and v.backend == "docker" and v.workers == 2
    for t in v.tasks:
        kinds = {r.kind: r for r in t.runs}
        assert kinds[RunKind.reference].passed and not kinds[RunKind.stub].passed
        assert all(r.built and not r.passed for r in t.runs if r.kind is RunKind.faulty)
        assert t.mutants.generated == 3


@pytest.mark.docker
def test_a_verify_batch_on_ray_gives_the_local_verdicts(on_ray):
    phone, space = load_task(FIXED26 / "phone-number"), load_task(FIXED26 / "space-age")
    controls = [{p.name: p.read_bytes() for p in (phone.path / ".meta" / "faulty" / n).iterdir()}
                for n in ("accepts-area-code-1", "keeps-country-code")]
    items = [(phone, phone.reference_files()), *((phone, c) for c in controls), (phone, phone.stub_files()),
             (space, space.reference_files()), (space, space.stub_files()),
             (phone, {"phone_number.cpp": b"this is not C++"})]
    heard = []
    with make_executor(on_ray, sandbox="docker") as executor:
        got = verify_batch(items, sandbox=executor, progress=lambda i, v: heard.append(i))
    here = verify_batch(items, sandbox="docker", workers=2)
    assert sorted(heard) == list(range(len(items)))
    view = lambda vs: [(v.task, v.status, v.reward, [(c.name, c.passed) for c in v.checks]) for v in vs]  # noqa: E731
    assert view(got) == view(here)
    assert [v.reward for v in got][:1] == [1.0] and got[4].reward == 1.0 and got[-1].status.value == "compile_error"


def test_a_units_error_on_a_node_is_that_units_result_and_the_others_are_delivered(on_ray):
    delivered, failed = {}, {}
    with make_executor(on_ray, sandbox="docker") as executor:
        executor.run(list(range(6)), lambda u, slot: 100 // (u - 2), label="failing",
                     on_result=lambda u, r: delivered.__setitem__(u, r),
                     on_failure=lambda u, f: failed.__setitem__(u, f.record.kind))
    assert delivered == {u: 100 // (u - 2) for u in range(6) if u != 2}
    assert failed == {2: "harness"}


@pytest.mark.docker
def test_curriculum_validation_on_ray_keeps_what_local_keeps(on_ray, tmp_path):
    suite = make_suite(tmp_path)
    built = {}
    for name, where in (("ray", on_ray), ("local", ExecutorSettings(kind="local"))):
        b = synthesize(SynthConfig(suite=str(suite), out=f"syn-{name}", root=tmp_path / "curricula", max_per_task=2,
                                   mutants_per_task=6, controls=1, sandbox="docker", workers=2, executor=where))
        s = b.manifest.summary
        built[name] = (b.manifest.repair_tasks, s.kept, s.dropped, s.sandbox_runs, s.workers, s.backend)
    assert built["ray"] == built["local"] and built["ray"][1] >= 2
    # The same exercises, file for file (but the curriculum's name in their records).
    ray_root, local_root = tmp_path / "curricula" / "syn-ray", tmp_path / "curricula" / "syn-local"
    for slug in built["ray"][0]:
        named = {rel: data.replace(b"syn-ray/", b"syn-local/") for rel, data in read_files(ray_root / slug).items()}
        assert named == read_files(local_root / slug)


@pytest.mark.docker
def test_a_rate_limit_is_one_pace_for_every_node(on_ray, tmp_path):
    task = load_task(make_suite(tmp_path) / "sum-of-squares")
    answer, sent = reference_answer(task, "whole"), []

    def reply(body: dict) -> str:
        sent.append(time.monotonic())
        return answer

    with ScriptedModel({"paced": Script(by_request=reply)}) as model:
        s = run(RunConfig(suite=str(task.path.parent), models=["openai/paced"], api_base=model.api_base, trials=4,
                          rounds=1, sandbox="docker", runs_dir=tmp_path / "runs", run_id="paced", executor=on_ray,
                          requests_per_minute=30))
    assert s.configs[0].first_round_mean == 1  # the one task, in every trial
    sent.sort()
    gaps = [b - a for a, b in zip(sent, sent[1:])]
    # Two slots on two nodes ask at once; one pace lets one request go every 2 s. The server
    # sees each request a little after its turn, by as much as the sender's load delays it
    # (a gap of 2.28 s then one of 1.72 s on a loaded machine), so each request is held to
    # its turn counted from the first, and no two arrive together, as two paces would send them.
    assert len(sent) == 4 and min(gaps) > 1.0, gaps
    assert all(t - sent[0] > 2 * k - 0.5 for k, t in enumerate(sent)), gaps


@pytest.mark.docker
def test_sigterm_stops_every_node_and_leaves_no_container(on_ray, tmp_path):
    task = load_task(make_suite(tmp_path) / "sum-of-squares")
    script = Script(then=reference_answer(task, "whole"), delay_s=30)
    runs = tmp_path / "runs"
    with ScriptedModel({"slow": script}) as model:
        cmd = [str(HARNESS), "run", "--suite", str(task.path.parent), "--model", "openai/slow", "--api-base",
               model.api_base, "--trials", "3", "--rounds", "1", "--sandbox", "docker", "--runs-dir", str(runs),
               "--run-id", "stopped", "--executor", "ray", "--ray-address", on_ray.address]
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, preexec_fn=interruptible)
        deadline = time.monotonic() + 240
        while len(model.requests["slow"]) < 2 and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.2)
        assert len(model.requests["slow"]) == 2, proc.poll()  # a trial waits on the model on each node
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=120)
        assert proc.returncode == 130, err
        assert "interrupted" in err and "--resume stopped" in err
        assert containers_of("stopped") == []
        folder = RunFolder(runs / "stopped")
        # The two trials in flight ended as interrupted (rerun by --resume), the third never started.
        results = [folder.read_result("openai-slow", "sum-of-squares", k) for k in (1, 2, 3)]
        assert sorted(r.infra_error.kind for r in results if r is not None) == ["interrupted", "interrupted"]


@pytest.mark.docker
def test_a_trial_cut_after_round_1_continues_on_a_node_from_round_1(on_ray, tmp_path):
    """Round 1 ran here and was tested, then the provider went down: the resumed trial runs
    only round 2, on a node, from round 1's files as the run folder keeps them."""
    task = load_task(make_suite(tmp_path) / "sum-of-squares")
    solved = reference_answer(task, "whole")
    wrong = solved.replace("total += k * k;", "total += k;")
    script, runs = Script([wrong], then=500), tmp_path / "runs"
    with ScriptedModel({"fault2": script}) as model:
        first = run(RunConfig(suite=str(task.path.parent), models=["openai/fault2"], api_base=model.api_base, trials=1,
                              rounds=2, agent=str(fast_profile(tmp_path)), sandbox="docker", runs_dir=runs,
                              run_id="cut", executor=ExecutorSettings(kind="local")))
        folder = RunFolder(first.run_dir)
        cut = folder.read_result("openai-fault2", "sum-of-squares", 1)
        assert cut.infra_error.kind == "provider" and cut.rounds[0].test_report is not None
        round1 = folder.trial_dir("openai-fault2", "sum-of-squares", 1) / "round-1"
        kept = {p: p.read_bytes() for p in sorted(round1.rglob("*")) if p.is_file()}
        asked = len(model.requests["fault2"])
        script.then = solved
        resumed = run(RunConfig(resume="cut", runs_dir=runs, executor=on_ray))
        assert len(model.requests["fault2"]) == asked + 1  # round 2 alone
    r = folder.read_result("openai-fault2", "sum-of-squares", 1)
    assert (resumed.ran, r.passed_round, r.rounds[0], r.started_at) == (1, 2, cut.rounds[0], cut.started_at)
    assert {p: p.read_bytes() for p in sorted(round1.rglob("*")) if p.is_file()} == kept
    assert RunFolder(first.run_dir).read_manifest().executor.startswith("ray cluster")


class Counted:
    """A progress display that counts each trial it is told of."""

    def __init__(self):
        self.seen: list[tuple] = []

    def begin(self, plan, total, done):
        pass

    def advance(self, result):
        self.seen.append((result.config, result.task, result.trial, result.outcome))

    def end(self):
        pass


@pytest.mark.docker
def test_a_node_killed_mid_run_costs_a_retry_not_a_result(cluster, on_ray, tmp_path):
    task = load_task(make_suite(tmp_path) / "sum-of-squares")
    with ScriptedModel({"slow": Script(then=reference_answer(task, "whole"), delay_s=3)}) as model:
        progress, out = Counted(), {}
        config = RunConfig(suite=str(task.path.parent), models=["openai/slow"], api_base=model.api_base, trials=4,
                           rounds=1, sandbox="docker", runs_dir=tmp_path / "runs", run_id="killed", executor=on_ray)
        worker = threading.Thread(target=lambda: out.update(summary=run(config, progress=progress)))
        worker.start()
        deadline = time.monotonic() + 240
        while len(model.requests["slow"]) < 2 and time.monotonic() < deadline:
            time.sleep(0.2)
        cluster.kill_second_raylet()  # a trial waits on the model there
        worker.join(300)
    summary = out["summary"]
    assert sorted(progress.seen) == [("openai-slow", "sum-of-squares", k, TrialOutcome.passed) for k in (1, 2, 3, 4)]
    assert (summary.ran, summary.configs[0].infra_errors, summary.configs[0].first_round_mean) == (4, 0, 1)
    assert len(model.requests["slow"]) == 5  # the lost attempt's request, then each trial's one
    assert containers_of("killed") == []


def test_a_cluster_that_cannot_be_reached_is_one_line(tmp_path):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # nothing listens there once closed
    suite = make_suite(tmp_path)
    done = subprocess.run([str(HARNESS), "run", "--suite", str(suite), "--model", "gold", "--runs-dir", str(tmp_path / "runs"),
                           "--executor", "ray", "--ray-address", f"127.0.0.1:{port}"], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 2 and done.stderr.strip().splitlines() == [
        f"error: cannot reach the Ray cluster at 127.0.0.1:{port}: Connection refused"], done.stderr
    assert not (tmp_path / "runs").exists()


def test_without_ray_installed_the_executor_is_one_line(tmp_path):
    fake = tmp_path / "no-ray" / "ray"
    fake.mkdir(parents=True)
    (fake / "__init__.py").write_text("raise ImportError('no ray here')\n")
    env = {**os.environ, "PYTHONPATH": f"{tmp_path / 'no-ray'}:{ROOT}", "HARNESS_EXECUTOR": "ray"}
    done = subprocess.run([str(HARNESS), "suite", "validate", "fixed26", "--tasks", "clock"], capture_output=True,
                          text=True, env=env, timeout=120)
    assert done.returncode == 2 and done.stderr.strip() == \
        "error: --executor ray needs Ray: pip install 'coding-harness[ray]'", done.stderr
    bad = subprocess.run([str(HARNESS), "run", "--model", "gold", "--executor", "slurm"], capture_output=True, text=True,
                         timeout=120)
    assert bad.returncode == 2 and "--executor 'slurm': choose one of local, ray" in bad.stderr
