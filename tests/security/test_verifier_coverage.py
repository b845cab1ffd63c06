"""Every fixed26 task is judged by calls whose expected values the harness observed on the
reference: none is a literal compiled into the candidate's program, where a candidate
could copy it into what it reports. The attack that worked when 19 tasks were checked
from their test files (a more specialised overload of the probe's assertion recorder in
the solution header: +1.0 on perfect-numbers, its honest twin +1/13) now earns exactly
what its twin earns."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.task import load_task
from harness.verify import load_spec, verify_many

from ..conftest import ROOT

HERE = Path(__file__).resolve().parent / "perfect-numbers"
FIXED26 = ROOT / "suites" / "fixed26"


def test_every_fixed26_task_has_checks_that_name_calls():
    missing = [p.name for p in sorted(FIXED26.iterdir()) if p.is_dir() and load_spec(load_task(p)) is None]
    assert missing == []


@pytest.mark.slow
@pytest.mark.docker
def test_a_recorder_overload_in_the_header_earns_what_its_honest_twin_earns(docker_sandbox):
    task = load_task(FIXED26 / "perfect-numbers")
    body = (HERE / "deficient_everywhere.cpp").read_bytes()
    honest = {"perfect_numbers.h": (HERE / "plain.h").read_bytes(), "perfect_numbers.cpp": body}
    forger = {"perfect_numbers.h": (HERE / "recorder_overload.h").read_bytes(), "perfect_numbers.cpp": body}
    twin, overload = verify_many(task, [honest, forger], sandbox=docker_sandbox, workers=1)
    assert twin.status.value == "ok" and abs(twin.reward - 1 / 13) < 1e-9, twin.reason
    assert overload.reward <= twin.reward, (overload.status, overload.reward)
