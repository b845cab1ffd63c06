"""`harness run --model local/<adapter>` evaluates an adapter served by the local backend
through Aider, exactly as it evaluates a hosted model. The tiny model's answer is garbage;
the point is the path: card -> endpoint record -> litellm `openai/<adapter>` at the
server's URL -> Aider -> sandbox -> a finished trial."""

from __future__ import annotations

import json
import subprocess

import pytest

from .conftest import HARNESS, free_port, harness

# Above the run's own hour: on a fresh machine it first creates Aider's environment.
pytestmark = [pytest.mark.slow, pytest.mark.docker, pytest.mark.timeout(3900)]


def test_run_an_adapter_through_aider(tmp_path, state_dir, tiny):
    assert harness("adapters", "add", str(tiny.adapters["alpha"]), "--name", "alpha", "--base", str(tiny.base)).returncode == 0
    port = free_port()
    started = harness("serve", "--backend", "local", "--device", "cpu", "--base", str(tiny.base),
                      "--adapter", "alpha", "--port", str(port))
    assert started.returncode == 0, started.stderr
    from harness.serve.endpoint import find_record
    from harness.serve.launch import stop_server

    record = find_record(port)
    try:
        run = subprocess.run([HARNESS, "run", "--suite", "fixed26", "--model", "local/alpha", "--tasks", "phone-number",
                              "--trials", "1"], cwd=tmp_path, capture_output=True, text=True, timeout=3600)
        assert run.returncode in (0, 1), run.stderr[-3000:]  # the trial may fail; bad input (2) may not happen
        results = list(tmp_path.rglob("result.json"))
        assert len(results) == 1, run.stdout[-3000:]
        assert "phone-number" in str(results[0])
        result = json.loads(results[0].read_text())
        assert not result.get("infra_error"), f"the trial ended in an infrastructure error: {result['infra_error']}"
        served = open(record.log_path).read()
        assert "completion model=alpha" in served, "Aider never reached the adapter on the local server"
    finally:
        stop_server(record)
