"""Test-writing scores a written suite cannot earn without testing behaviour: a suite that
holds a copy of the reference is scored but marked and earns no training reward, and the
reference runs at a place among the targets drawn from a seed the harness draws, so a
suite that passes the first time it runs and fails after cannot tell the reference from
a broken copy."""

from __future__ import annotations

import types

import pytest

from harness.agents.editformat import render_whole
from harness.records import TestWritingSettings
from harness.task import load_task
from harness.testwriting import score as scoring
from harness.testwriting.score import TargetPool, score_with_report

from ..conftest import ROOT

pytestmark = [pytest.mark.slow, pytest.mark.docker]

PERFECT = load_task(ROOT / "suites" / "fixed26" / "perfect-numbers")
TESTS = PERFECT.read("perfect_numbers_test.cpp")
CAP = 5
# The reference pasted into the suite, under another namespace, and the solution tested
# against it: a suite that kills every broken copy without stating one expected value.
EMBEDDING = TESTS + PERFECT.reference_files()["perfect_numbers.cpp"].replace(b'#include "perfect_numbers.h"', b"").replace(
    b"namespace perfect_numbers {", b"namespace copy {\nusing perfect_numbers::classification;") + b"""
TEST_CASE("agrees with a copy of the reference") {
    for (int n = 1; n < 300; ++n) REQUIRE(perfect_numbers::classify(n) == copy::classify(n));
}
"""
# Passes the first time it runs in a container and fails every time after.
FIRST_RUN_ONLY = b"""#include "perfect_numbers.h"

#include <catch2/catch.hpp>

#include <fstream>

TEST_CASE("the first run passes") {
    const char* marker = "/dev/shm/.first-run";
    const bool first = !std::ifstream(marker).good();
    std::ofstream(marker) << 1;
    REQUIRE(first);
}
"""


@pytest.fixture(scope="module")
def pool():
    return TargetPool(mutant_cap=CAP)


def test_a_suite_that_embeds_the_reference_is_scored_marked_and_never_rewarded(docker_sandbox, pool):
    from harness.train.config import RuntimeSettings
    from harness.train.rewards import TestsJudge, TestsTarget

    with docker_sandbox.session("embedding") as session:
        scored, _ = score_with_report(PERFECT, EMBEDDING, session, lambda: pool.get(PERFECT, session))
    assert scored.valid and scored.kill_rate == 1.0  # it is a good suite, by every number
    assert scored.embeds_reference and scored.reference_similarity >= 0.99
    judge = TestsJudge(RuntimeSettings(sandbox="docker", verify_workers=1))
    target = TestsTarget(task_path=str(PERFECT.path), tests=TestWritingSettings(mutant_cap=CAP)).model_dump_json()
    got = judge.judge([render_whole({"perfect_numbers_test.cpp": text.decode()}) for text in (TESTS, EMBEDDING)],
                      [target, target])
    assert (got[0].reward, got[0].status) == (1.0, "valid")
    assert (got[1].reward, got[1].status) == (0.0, "embeds_reference")


def test_a_suite_that_passes_only_its_first_run_cannot_tell_the_reference_from_a_target(docker_sandbox, pool,
                                                                                        monkeypatch):
    # The drawn place of the reference, made second: the first run is a broken copy's.
    fake = types.SimpleNamespace(Random=lambda seed: types.SimpleNamespace(randrange=lambda n: min(1, n - 1)))
    monkeypatch.setattr(scoring, "random", fake, raising=False)
    with docker_sandbox.session("first run") as session:
        scored, _ = score_with_report(PERFECT, FIRST_RUN_ONLY, session, lambda: pool.get(PERFECT, session))
    assert not (scored.valid and scored.kill_rate), f"valid {scored.valid}, kill rate {scored.kill_rate}"
    assert scored.reference_position == 1 and scored.order_seed is not None


def test_each_suite_draws_the_references_place_from_a_seed_of_its_own(docker_sandbox, pool):
    with docker_sandbox.session("order") as session:
        found = [score_with_report(PERFECT, TESTS, session, lambda: pool.get(PERFECT, session))[0] for _ in range(3)]
    assert len({s.order_seed for s in found}) == 3
    assert all(0 <= s.reference_position <= len(s.targets) for s in found)
    assert all(s.valid and s.kill_rate == 1.0 for s in found)  # the honest suite scores the same wherever it ran
