"""The executor seam without a cluster: where work runs is chosen by options or the
environment, one pace spaces a provider's requests for every thread, tasks travel as their
files and land whole, a trial that ran elsewhere is written as a local one writes its
folder, a unit's error and a typed error come back as raised, and a slot frees a task's
warm build tree when it moves to another (the local sandbox backend)."""

from __future__ import annotations

import gc
import pickle
import signal
import threading
import time

import pytest

from harness.errors import BadInput, InfraError, InfraKind, ProviderFailure
from harness.executor import ExecutorSettings, LocalExecutor
from harness.executor.pace import Limiter, Pace
from harness.executor.shipping import landed_task, task_payload
from harness.store import RESULT, RunFolder
from harness.task import load_task

from tests.conftest import GOLDEN


def test_the_executor_comes_from_options_then_the_environment(monkeypatch):
    monkeypatch.delenv("HARNESS_EXECUTOR", raising=False)
    monkeypatch.delenv("HARNESS_RAY_ADDRESS", raising=False)
    assert ExecutorSettings.given(None, None) is None
    assert ExecutorSettings.from_env() == ExecutorSettings(kind="local")
    monkeypatch.setenv("HARNESS_EXECUTOR", "ray")
    monkeypatch.setenv("HARNESS_RAY_ADDRESS", "10.0.0.1:6379")
    monkeypatch.setenv("HARNESS_RAY_SLOT_CPUS", "0.5")
    assert ExecutorSettings.from_env() == ExecutorSettings(kind="ray", address="10.0.0.1:6379", slot_cpus=0.5)
    assert ExecutorSettings.given("local", None) == ExecutorSettings(kind="local")
    for kind, address, words in [("slurm", None, "--executor 'slurm': choose one of local, ray"),
                                 (None, "h:1", "--ray-address needs --executor ray"),
                                 ("local", "h:1", "--ray-address needs --executor ray")]:
        with pytest.raises(BadInput, match=words):
            ExecutorSettings.given(kind, address)
    monkeypatch.setenv("HARNESS_RAY_SLOT_CPUS", "none")
    with pytest.raises(BadInput, match="HARNESS_RAY_SLOT_CPUS='none'"):
        ExecutorSettings.from_env()


def test_a_pace_spaces_requests_evenly():
    pace = Pace(per_minute=60)
    assert [pace.reserve(0.0), pace.reserve(0.0), pace.reserve(0.5), pace.reserve(10.0), pace.reserve(10.2)] == \
        [0.0, 1.0, 1.5, 0.0, pytest.approx(0.8)]


def test_one_limiter_paces_every_thread():
    limiter, sent = Limiter(per_minute=600), []  # one request per 0.1 s

    def ask() -> None:
        limiter.wait()
        sent.append(time.monotonic())

    threads = [threading.Thread(target=ask) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    sent.sort()
    assert all(b - a > 0.08 for a, b in zip(sent, sent[1:])), sent


def test_a_task_travels_as_its_files_and_lands_whole(tmp_path, monkeypatch):
    task = load_task(GOLDEN / "sum-of-squares")
    monkeypatch.setenv("HARNESS_CACHE_DIR", str(tmp_path / "node-cache"))
    payload = pickle.loads(pickle.dumps(task_payload(task)))
    landed = landed_task(payload)
    assert landed.path.is_relative_to(tmp_path / "node-cache") and landed.path.name == task.slug
    assert (landed.content_hash, landed.model_dump(exclude={"path"})) == (task.content_hash, task.model_dump(exclude={"path"}))
    assert landed.reference_files() == task.reference_files()
    # Landing again, or from two slots at once, finds the one copy.
    again: list = []
    threads = [threading.Thread(target=lambda: again.append(landed_task(payload))) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert {t.path for t in again} == {landed.path}
    assert [p.name for p in landed.path.parent.iterdir()] == [task.slug]  # no landing folder left


def test_a_trial_that_ran_elsewhere_is_written_as_a_local_one_is(tmp_path):
    trial = tmp_path / "trial-1"
    for rel in ("round-1/trajectory.json", "round-1/workspace/a.cpp", "round-2/trajectory.json", "agent.log", RESULT):
        (trial / rel).parent.mkdir(parents=True, exist_ok=True)
        (trial / rel).write_text(f"old {rel}")
    kept = RunFolder.kept_files(trial, 1)
    assert sorted(kept) == ["agent.log", "round-1/trajectory.json", "round-1/workspace/a.cpp"]
    shipped = {**kept, "agent.log": b"old and new", "round-2/trajectory.json": b"new", RESULT: b"{}"}
    RunFolder.write_trial(trial, shipped, kept_rounds=1)
    assert {p.relative_to(trial).as_posix(): p.read_bytes() for p in trial.rglob("*") if p.is_file()} == shipped


def test_typed_errors_cross_processes_as_raised():
    for exc in (ProviderFailure("the endpoint kept failing", 3), InfraError(InfraKind.node, "gone", attempts=2)):
        back = pickle.loads(pickle.dumps(exc))
        assert (type(back), str(back), back.kind, back.attempts) == (type(exc), str(exc), exc.kind, exc.attempts)


@pytest.fixture
def local_box():
    from tests.conftest import make_backend

    return make_backend("local")


def test_a_units_error_is_that_units_result_and_every_other_unit_is_delivered(local_box):
    got: dict = {}
    with LocalExecutor(local_box, 3) as executor:
        executor.run(list(range(10)), lambda u, slot: (u * u, slot.number), label="squares",
                     on_result=lambda u, r: got.__setitem__(u, r[0]))
        assert got == {u: u * u for u in range(10)}

        def work(u, slot):
            if u == 2:
                raise BadInput("unit 2 is bad")
            if u == 3:
                raise RecursionError("deep")
            if u == 4:
                raise InfraError(InfraKind.sandbox, "the container died")
            time.sleep(0.05)
            return u

        done, failed = [], {}
        executor.run(list(range(8)), work, label="failing", on_result=lambda u, r: done.append(u),
                     on_failure=lambda u, f: failed.__setitem__(u, f.record.kind))
        assert sorted(done) == [0, 1, 5, 6, 7]
        assert failed == {2: "bad_input", 3: "harness", 4: "sandbox"}
        # Without on_failure, the first failure is raised, but only once every other unit ran.
        done.clear()
        with pytest.raises(BadInput, match="unit 2 is bad"):
            executor.run([2, 0, 1, 5, 6], work, label="failing", on_result=lambda u, r: done.append(u))
        assert sorted(done) == [0, 1, 5, 6]


def test_ctrl_c_returns_only_once_every_unit_in_flight_has_ended(local_box):
    """What a unit in flight does after Ctrl-C (a trial giving its session back) is over
    before run raises: the caller closes the sessions next."""
    ended, started = [], threading.Barrier(3)

    def work(u, slot):
        started.wait(30)
        slot.host.cancel.wait(30)
        time.sleep(1.0 if slot.number == 0 else 0.1)  # the trial's own winding down, after the stop
        ended.append(u)

    def ctrl_c():
        started.wait(30)  # both units in flight, whatever the machine's load
        signal.raise_signal(signal.SIGINT)

    if threading.current_thread() is not threading.main_thread():
        pytest.skip("signals reach the main thread only")
    # Python's own Ctrl-C, whatever an earlier test of this process set; no collection while
    # it waits, since a finalizer that Ctrl-C lands in would swallow the KeyboardInterrupt.
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    gc.disable()
    try:
        with LocalExecutor(local_box, 2) as executor:
            threading.Thread(target=ctrl_c, daemon=True).start()
            with pytest.raises(KeyboardInterrupt):
                executor.run([1, 2], work, label="interrupted")
            assert sorted(ended) == [1, 2]
    finally:
        gc.enable()
        signal.signal(signal.SIGINT, previous)


def test_a_slot_frees_a_tasks_warm_tree_when_it_moves_on(local_box):
    freed = []
    with LocalExecutor(local_box, 1) as executor:
        (slot,) = executor._slots
        first = slot.warm_session("a", lambda s: freed.append(("a", s)))
        assert slot.warm_session("a", lambda s: freed.append(("a again", s))) is first and freed == []
        assert slot.warm_session("b", lambda s: freed.append(("b", s))) is first
        assert freed == [("a", first)]
