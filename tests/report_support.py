"""Writes run folders and outcomes files the way the runner and other tools do, so report
tests read real records from disk. A trial is given as the round it first passed in: 1, 2,
None (failed every round), "infra" (an infrastructure error of the provider before any test;
"infra:KIND" for another kind), "fault2" (round 1 failed, then an infrastructure error in round 2)
or "skip" (no result.json)."""

from __future__ import annotations

import datetime
from pathlib import Path

import pandas as pd

from harness.records import (
    AgentCounters, ConfigManifest, InfraFailure, RoundRecord, RunManifest, RunRegistration, Sampling, Status,
    TestCaseResult, TestReport, TrialOutcome, TrialResult,
)

STAMP = "2025-01-01T00:00:00+00:00"


def config_manifest(name: str, **overrides) -> ConfigManifest:
    fields = dict(
        name=name, model=f"openai/{name}", agent_profile="aider-whole", agent_hash="a" * 64,
        aider_version="0.86.2", edit_format="whole", contract="original", contract_hash="c" * 64,
        sampling=Sampling(temperature=0.0),
    )
    fields.update(overrides)
    return ConfigManifest(**fields)


def _rounds(first_pass, counters: AgentCounters, tests: int, planned: int = 2) -> list[RoundRecord]:
    rounds = []
    for number in range(1, planned + 1):
        passed = first_pass == number
        status = Status.passed if passed else Status.failed
        cases = [TestCaseResult(name=f"case {i}", status=status,
                                message=None if passed else "REQUIRE( answer == expected ) with expansion: 1 == 2",
                                output=None if passed else "x" * 200)
                 for i in range(tests)]
        report = TestReport(status=status, tests=cases, message=None if passed else "failed: " + "y" * 500)
        rounds.append(RoundRecord(round=number, counters=counters, test_report=report))
        if passed:
            break
    return rounds


def write_run(
    root: Path,
    run_id: str,
    outcomes: dict[str, dict[str, list]],
    configs: dict[str, dict] | None = None,
    suite_hash: str = "s" * 64,
    task_hashes: dict[str, str] | None = None,
    counters: AgentCounters | None = None,
    tests_per_report: int = 0,
    rounds: int = 2,
    unseen_tasks: list[str] | None = None,
    written: dict[str, datetime.date] | None = None,
    preregistered: RunRegistration | None = None,
) -> Path:
    """outcomes[config][task] = one entry per trial (see the module docstring). With
    tests_per_report, each round's TestReport lists that many test cases, failures with a
    message and output, as large as a real result.json."""
    run = root / run_id
    tasks = sorted({t for per_task in outcomes.values() for t in per_task})
    trials = max(len(v) for per_task in outcomes.values() for v in per_task.values())
    manifest = RunManifest(
        run_id=run_id, created_at=STAMP, harness_version="0.1.0", suite="fixed26", suite_version="1",
        suite_hash=suite_hash, task_hashes=task_hashes or {t: t[0] * 64 for t in tasks}, tasks=tasks,
        trials=trials, rounds=rounds, sandbox="local",
        configs=[config_manifest(name, **(configs or {}).get(name, {})) for name in outcomes],
        unseen_tasks=unseen_tasks or [], written=written or {}, preregistered=preregistered,
    )
    run.mkdir(parents=True)
    (run / "manifest.json").write_text(manifest.model_dump_json(indent=2))
    for config, per_task in outcomes.items():
        for task, entries in per_task.items():
            for k, entry in enumerate(entries, start=1):
                if entry == "skip":
                    continue
                folder = run / config / task / f"trial-{k}"
                folder.mkdir(parents=True)
                base = dict(run_id=run_id, config=config, task=task, trial=k, suite="fixed26",
                            task_hash="h", model=f"openai/{config}", started_at=STAMP, finished_at=STAMP)
                if isinstance(entry, str) and entry.startswith("infra"):
                    kind = entry.partition(":")[2] or "provider"
                    result = TrialResult(**base, outcome=TrialOutcome.infra_error,
                                         infra_error=InfraFailure(kind=kind, message="timeout"))
                elif entry == "fault2":
                    tested = _rounds(None, counters or AgentCounters(), tests_per_report, planned=1)
                    result = TrialResult(**base, outcome=TrialOutcome.infra_error, rounds=tested + [RoundRecord(round=2)],
                                         infra_error=InfraFailure(kind="provider", message="timeout"))
                else:
                    result = TrialResult(
                        **base, outcome=TrialOutcome.passed if entry else TrialOutcome.failed,
                        passed_round=entry, rounds=_rounds(entry, counters or AgentCounters(), tests_per_report, rounds))
                (folder / "result.json").write_text(result.model_dump_json())
    return run


def outcomes_table(outcomes: dict[str, dict[str, list]]) -> pd.DataFrame:
    """The same trials as an outcomes file's rows (infra errors and skips left out; a round-2
    fault has an empty round2)."""
    rows = []
    for config, per_task in outcomes.items():
        for task, entries in per_task.items():
            for k, entry in enumerate(entries, start=1):
                if entry == "skip" or (isinstance(entry, str) and entry.startswith("infra")):
                    continue
                rows.append(dict(config=config, task=task, trial=k, round1=entry == 1,
                                 round2=None if entry == "fault2" else entry in (1, 2)))
    return pd.DataFrame(rows)


def marginal_table() -> dict[str, list]:
    """26 tasks, 4 trials, built so that round 1 solves 45 task-trials (mean 11.25 of 26,
    43.3%), 59 task-trials fail round 1, and round 2 solves 16 of them (27.1%):
      11 tasks pass round 1 in every trial                 44 round-1 passes
      1 task passes round 1 once, round 2 in the other 3     1 pass, 3 recoveries
      3 tasks fail round 1 and pass round 2 in every trial  12 recoveries
      1 task passes round 2 once and fails the rest          1 recovery
      10 tasks never pass
    Two rounds: 45 + 16 = 61 task-trials, mean 15.25 (58.7%)."""
    table: dict[str, list] = {}
    for i in range(11):
        table[f"always-{i:02d}"] = [1, 1, 1, 1]
    table["once-then-fixed"] = [1, 2, 2, 2]
    for i in range(3):
        table[f"fixed-{i}"] = [2, 2, 2, 2]
    table["fixed-once"] = [None, 2, None, None]
    for i in range(10):
        table[f"never-{i:02d}"] = [None, None, None, None]
    return table
