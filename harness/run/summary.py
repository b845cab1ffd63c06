"""What a run ends with: its counts (RunSummary) and the headline numbers per config, read
from the run folder and computed by harness.stats as the reports compute them."""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, Field

from ..errors import BadInput, InfraKind
from ..kinds import kind_class
from ..store import RunFolder


class ConfigSummary(BaseModel):
    config: str
    model: str
    tasks: int                   # N: tasks in the run
    trials: int                  # T
    first_round_mean: float | None  # mean over trials of tasks solved in round 1; None: no round was tested
    two_round_mean: float | None    # ... within two rounds
    recovered: int               # first-round failures solved in round 2 (k)
    first_round_failures: int    # n
    infra_errors: int            # trials not done: an infrastructure error, before or after round 1
    harness_errors: int = 0      # of those, the ones a bug of the harness ended (not the agent's fault)
    suite_errors: int = 0        # of those, trials of a task whose files could not be read (never run)
    missing: int                 # trials with no result at all (the run was stopped)
    # A test-writing run: the mean over tasks of kill rate and assertion accuracy within
    # two rounds (None: no value), as the report computes them.
    kill_rate: float | None = None
    assertion_accuracy: float | None = None



class RunSummary(BaseModel):
    run_id: str
    run_dir: Path
    planned: int           # task-trials the run holds
    ran: int = 0           # task-trials run by this invocation
    skipped: int = 0       # done before it, or ended by a harness bug and not retried (resume)
    dry_run: bool = False
    configs: list[ConfigSummary] = Field(default_factory=list)
    plan: list[str] = Field(default_factory=list)  # dry run: "config task trial-k" lines


def summarize_run(run_dir: Path) -> list[ConfigSummary]:
    """The headline numbers per config, from what is on disk, computed by harness.stats as
    the reports compute them."""
    # pandas and scipy take a second to import: a run warms them in a thread while its
    # last trials run (import_summary_stack), and a dry run never pays for them.
    from .. import stats
    from ..outcomes import load_run

    manifest = RunFolder(run_dir).read_manifest()
    try:
        frame = load_run(run_dir).frame
    except BadInput:  # no trial finished yet
        frame = None
    out = []
    for cfg in manifest.configs:
        first = two = None
        recovery, infra, harness, missing = stats.Ratio(0, 0), 0, 0, len(manifest.tasks) * manifest.trials
        suite = 0
        if frame is not None:
            rows = frame[frame["config"] == cfg.name]
            counts = stats.task_counts(rows)
            if len(counts):
                s = stats.summarize(cfg.name, counts, with_pass_at_k=False)
                first, two, recovery = s.mean[0], s.mean[1], s.recovery or recovery
            health = stats.health(rows)
            infra, missing = health.infra_errors + health.partial, health.missing
            harness = int((rows["infra_kind"] == InfraKind.harness.value).sum())
            suite = int((rows["infra_kind"] == InfraKind.suite.value).sum())
        else:
            folder = RunFolder(run_dir)
            results = [r for t in manifest.tasks for k in range(1, manifest.trials + 1)
                       if (r := folder.read_result(cfg.name, t, k)) is not None]
            infra, harness, suite = len(results), sum(r.harness_bug for r in results), sum(r.suite_error for r in results)
            missing -= infra
        shares = {}
        if frame is not None:
            for metric in kind_class(manifest.kind).share_metrics:
                found = stats.summarize_metric(frame, cfg.name, metric, 2, resamples=100)
                shares[metric] = found.mean if found.tasks else None
        out.append(ConfigSummary(
            config=cfg.name, model=cfg.model, tasks=len(manifest.tasks), trials=manifest.trials,
            first_round_mean=first, two_round_mean=two, recovered=recovery.k, first_round_failures=recovery.n,
            infra_errors=infra, harness_errors=harness, suite_errors=suite, missing=missing, **shares,
        ))
    return out


def import_summary_stack() -> None:
    from .. import outcomes, stats  # noqa: F401  (what summarize_run reads the run with)
