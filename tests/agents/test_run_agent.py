"""The agent boundary under faults, with the real driver in the real Aider environment: a
session process that dies and a round that never ends are infrastructure errors, the
driver is replaced, and the next chat works; Aider never reads the protocol's stdin."""

from __future__ import annotations

import os
import shutil
import signal
import time

import pytest

from harness.agents.aider.agent import AiderAgent
from harness.agents.aider.drivers import DriverPool
from harness.agents.base import AgentChat
from harness.agents.registry import load_profile
from harness.errors import InfraError, InfraKind
from harness.agents.editformat import render_whole as whole_answer
from harness.task import load_task

from tests.conftest import GOLDEN
from tests.scripted_model import Script, ScriptedModel

pytestmark = [pytest.mark.slow]

TASK = load_task(GOLDEN / "sum-of-squares")
SOLVED = whole_answer({n: d.decode() for n, d in TASK.reference_files().items()})


def chat(tmp_path, model: ScriptedModel, name: str) -> AgentChat:
    ws = tmp_path / f"ws-{name}"
    for rel in TASK.shipped_files:
        (ws / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(TASK.path / rel, ws / rel)
    return AgentChat(workspace=ws, files=list(TASK.solution_files), model=f"openai/{name}",
                     api_base=model.api_base, api_key="sk-test", log_file=tmp_path / f"{name}.log")


def pool_with(round_s: float) -> DriverPool:
    profile = load_profile("aider-whole")
    profile.timeouts.round_s = round_s
    return DriverPool(profile)


def test_a_dead_session_and_a_stuck_round_are_infrastructure_errors(tmp_path):
    scripts = {"ok": Script([SOLVED], then=SOLVED), "slow": Script([], then=SOLVED, delay_s=60)}
    pool = pool_with(round_s=5)
    try:
        with ScriptedModel(scripts) as model:
            # The session process dies: the chat fails as the agent's fault, not the model's.
            agent = AiderAgent(pool)
            agent.start(chat(tmp_path, model, "ok"))
            os.kill(agent.session_pid, signal.SIGKILL)
            with pytest.raises(InfraError) as exc:
                agent.send("solve it")
            assert exc.value.kind is InfraKind.agent
            agent.close()

            # A round that does not end within round_s: the driver is killed.
            agent = AiderAgent(pool)
            agent.start(chat(tmp_path, model, "slow"))
            t0 = time.monotonic()
            with pytest.raises(InfraError, match="did not answer 'send' within 5 s"):
                agent.send("solve it")
            assert time.monotonic() - t0 < 30
            agent.close()

            # A fresh driver serves the next chat, which edits the workspace.
            agent = AiderAgent(pool)
            c = chat(tmp_path, model, "ok")
            agent.start(c)
            got = agent.send("solve it")
            agent.close()
            assert got.edited_files == ["sum_of_squares.cpp", "sum_of_squares.h"]
            assert (c.workspace / "sum_of_squares.cpp").read_bytes() == TASK.reference_files()["sum_of_squares.cpp"]
    finally:
        pool.close()


def test_an_answer_editing_outside_the_workspace_is_malformed_and_writes_nothing(tmp_path):
    outside = tmp_path / "outside.txt"
    outside.write_text("keep me\n")
    escape = whole_answer({"../escaped.h": "int x;\n", str(outside): "overwritten\n", "notes.txt": "inside\n"})
    pool = pool_with(round_s=120)
    try:
        with ScriptedModel({"escape": Script([escape])}) as model:
            agent = AiderAgent(pool)
            c = chat(tmp_path, model, "escape")
            agent.start(c)
            got = agent.send("solve it")
            agent.close()
    finally:
        pool.close()
    assert outside.read_text() == "keep me\n"
    assert not (c.workspace.parent / "escaped.h").exists()
    assert not (c.workspace / "notes.txt").exists()  # the answer is refused as a whole, as Aider refuses a malformed one
    refused = [n for n in got.notes if n.startswith("Refused an edit")]
    assert refused and "'../escaped.h'" in refused[0]
    assert got.counters.malformed_responses >= 1


def test_a_driver_forked_after_the_run_stopped_is_killed_not_handed_out():
    """The warm driver outlives a run: a fork asked for before Ctrl-C (while Aider was
    still importing) may come back after the run stopped, and no trial gets it."""
    pool = pool_with(round_s=120)
    pool.prewarm()
    pool.kill_all()
    with pytest.raises(InfraError) as exc:
        pool._fork()
    assert exc.value.kind is InfraKind.interrupted
    with pytest.raises(InfraError, match="the run is stopping"):
        pool.acquire()
