"""Every input a report accepts, turned into one pandas DataFrame of trial outcomes.

Inputs: run folders (`runs/<run-id>/manifest.json` and a `result.json` per trial), outcomes
files (CSV or Parquet with columns config, task, trial, round1, round2, and optionally any
setting column below), and folders of Aider benchmark results (one `.aider.results.json`
per exercise, whose `tests_outcomes` list holds one boolean per try and stops at the
first pass).

The frame has one row per task-trial expected, finished or not:

    config, task, trial        identity
    status                     passed | failed | partial (an infrastructure error after
                               round 1 was tested) | infra_error | missing (never written)
    done                       status is passed or failed: every round the trial needed ran
    rounds_recorded            leading rounds with a tested outcome
    round1_known, round2_known whether the round-1 outcome, and the outcome within two
                               rounds, count: a fault never removes a recorded outcome
    round1, round2             solved in round 1; the answer standing after two rounds passes
                               (under real feedback: solved within two rounds)
    rounds, planned_trials, suite, suite_hash, contract, contract_hash, agent, agent_hash,
    aider_version, sampling, feedback, feedback_hash
                               every setting that can change a number, as recorded, or None
                               (feedback: "real" unless a run recorded "simulated")
    infra_kind                 for an infrastructure error, its kind (errors.InfraKind), else None
    malformed_responses, exhausted_context_windows, timeouts,
    prompt_tokens, completion_tokens, cost      agent health, 0 where not recorded
    error_outputs, user_asks, lazy_comments, agent_seconds
                               the rest of what Aider's benchmark summary counts, by its
                               definitions (agent_seconds: its "duration", the agent's time)
    embeds_reference           a test-writing trial's rounds whose suite holds a copy of the
                               reference (testwriting/embedding.py): counted apart, never a
                               pass, and without shares
    kill_rate_1, kill_rate_2, assertion_accuracy_1, assertion_accuracy_2
                               a test-writing trial's shares in round 1 and within two
                               rounds (result_facts.py), NaN where there is none (a repair
                               trial, an invalid suite's kill rate); its validity is round1/2
    tests_1, assertions_1, suite_lines_1, equality_share_1, exception_share_1, property_share_1,
    other_share_1, constant_share_1 (and _2)
                               a written suite's diagnostics by the same rule
                               (result_facts.DIAGNOSTIC_COLUMNS), NaN where not read

What is known about a configuration beyond its trials (the model, the training set)
travels next to the frame as a ConfigInfo per configuration.
"""

from __future__ import annotations

import datetime
import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Literal

import numpy as np
import pandas as pd
from pydantic import BaseModel, ValidationError

from .errors import BadInput, InfraError, InfraKind, invalid
from .fs import written_atomically
from .languages import task_name
from .records import RunManifest, RunRegistration, TrialOutcome
from .result_facts import DIAGNOSTIC_COLUMNS, SHARE_COLUMNS, read_rows

REQUIRED_COLUMNS = ("config", "task", "trial", "round1", "round2")
# Every setting that can change a number; an outcomes file may give any of them per row.
SETTING_COLUMNS = ("rounds", "planned_trials", "suite", "suite_hash", "contract", "contract_hash", "agent",
                   "agent_hash", "aider_version", "sampling", "feedback", "feedback_hash")
HEALTH_COLUMNS = (
    "malformed_responses", "exhausted_context_windows", "timeouts",
    "prompt_tokens", "completion_tokens", "cost",
    "error_outputs", "user_asks", "lazy_comments", "agent_seconds", "embeds_reference",
)
METRIC_COLUMNS = tuple(f"{name}_{n}" for name in (*SHARE_COLUMNS, *DIAGNOSTIC_COLUMNS) for n in (1, 2))
FRAME_COLUMNS = ("config", "task", "trial", "status", "done", "rounds_recorded", "round1_known", "round2_known",
                 "round1", "round2", "infra_kind", *SETTING_COLUMNS, *HEALTH_COLUMNS, *METRIC_COLUMNS)
DEFAULT_ROUNDS = 2  # where a source does not record its rounds: both round columns are given

AIDER_RESULTS = ".aider.results.json"
# Aider names each benchmark run folder "<YYYY-MM-DD-HH-MM-SS>--<name>".
_AIDER_RUN_DIR = re.compile(r"^\d{4}-\d{2}-\d{2}-\d{2}-\d{2}-\d{2}--(?P<name>.+)$")


class ConfigInfo(BaseModel):
    """Everything recorded about one configuration that can change its results. None means
    "not recorded by this source", which a scope note says rather than guessing."""

    name: str
    source: str                          # where it came from, for messages
    model: str | None = None
    suite: str | None = None
    suite_hash: str | None = None
    task_hashes: dict[str, str] = {}
    tasks: list[str] | None = None       # the suite's task list, when known
    contract: str | None = None
    contract_hash: str | None = None
    agent_profile: str | None = None
    agent_hash: str | None = None
    aider_version: str | None = None
    edit_format: str | None = None
    trials: int | None = None            # trials planned
    rounds: int | None = None            # rounds planned
    sampling: dict[str, object] | None = None
    feedback: str = "real"               # what followed a round: the real tests' output, or simulated
    adapter: str | None = None
    adapter_hash: str | None = None
    trained_on_tasks: list[str] | None = None   # tasks it was trained on (at least these, if training_unknown)
    training_unknown: bool = False       # an adapter whose training set is not (fully) recorded
    run_dir: str | None = None           # a run's config: the run folder, and the config's
    run_config: str | None = None        # folder in it (the name before any qualification)
    kind: str | None = None              # what its trials asked for (repair, tests), when recorded
    unseen_tasks: list[str] = []         # tasks its suite declares unseen (a held-out pool)
    training_cutoff: datetime.date | None = None   # the last day of its training data, where declared
    written: dict[str, datetime.date] = {}         # the day each task was written, where the suite dates it
    preregistered: RunRegistration | None = None   # the bar its run recorded before its first trial
    first_trial_at: str | None = None              # when its first recorded trial started (UTC)


@dataclass
class Outcomes:
    frame: pd.DataFrame
    configs: dict[str, ConfigInfo]
    label: str = ""                      # the source's short name, used to qualify configs
    sources: list[str] = field(default_factory=list)

    def only(self, names: list[str]) -> "Outcomes":
        return Outcomes(
            frame=self.frame[self.frame["config"].isin(names)].reset_index(drop=True),
            configs={n: self.configs[n] for n in names},
            label=self.label, sources=self.sources,
        )


def sampling_text(s: dict | None) -> str | None:
    """Sampling settings as one comparable string; None when not recorded."""
    if s is None:
        return None
    shown = {k: v for k, v in s.items() if v is not None}
    return ", ".join(f"{k}={v}" for k, v in sorted(shown.items())) or "server defaults"


def _frame(rows: list[dict] | pd.DataFrame) -> pd.DataFrame:
    """Complete and type a frame: health columns default to 0, settings to None, and which
    outcomes count follows from the status and the rounds recorded."""
    frame = pd.DataFrame(rows) if not isinstance(rows, pd.DataFrame) else rows
    for col in ("infra_kind", *SETTING_COLUMNS):
        if col not in frame:
            frame[col] = None
    # Every source but a run with simulated feedback had the real tests' output after a round.
    frame["feedback"] = frame["feedback"].fillna("real")
    for col in HEALTH_COLUMNS:
        frame[col] = pd.to_numeric(frame[col], errors="coerce").fillna(0) if col in frame else 0
    for col in METRIC_COLUMNS:
        frame[col] = pd.to_numeric(frame[col], errors="coerce") if col in frame else np.nan
    frame["round1"] = frame["round1"].astype(bool)
    frame["round2"] = frame["round2"].astype(bool)
    rounds = pd.to_numeric(frame["rounds"], errors="coerce")
    planned = rounds.fillna(DEFAULT_ROUNDS)
    if "rounds_recorded" not in frame:
        frame["rounds_recorded"] = np.select(
            [frame["status"] == TrialOutcome.passed.value, frame["status"] == TrialOutcome.failed.value,
             frame["status"] == "partial"],
            [np.where(frame["round1"], 1, 2), planned, 1], 0)
    frame["rounds_recorded"] = pd.to_numeric(frame["rounds_recorded"], errors="coerce").fillna(0).astype("int64")
    frame["done"] = frame["status"].isin([TrialOutcome.passed.value, TrialOutcome.failed.value])
    frame["round1_known"] = frame["rounds_recorded"] >= 1
    # Under real feedback a pass in round 1 ends the trial; under simulated feedback and
    # Self-RLEF the trial decides for itself, and is settled when it is done.
    simulated = frame["feedback"] != "real"
    frame["round2_known"] = (planned >= 2) & ((frame["round1"] & ~simulated) | (frame["rounds_recorded"] >= 2)
                                              | (simulated & frame["done"]))
    frame["rounds"] = rounds.astype("Int64")
    frame["planned_trials"] = pd.to_numeric(frame["planned_trials"], errors="coerce").astype("Int64")
    frame = frame[list(FRAME_COLUMNS)].copy()
    frame["config"] = frame["config"].astype(str)
    frame["task"] = frame["task"].astype(str)
    frame["trial"] = frame["trial"].astype("int64")
    return frame


# --- runs --------------------------------------------------------------------------------


def load_run(path: Path, need_tested: bool = True) -> Outcomes:
    """A run folder: its manifest, then every trial's result.json. A trial the manifest
    plans but no result.json records is kept as status "missing". A run in which no round
    was tested has no number to give: bad input, unless not `need_tested` (the viewer shows
    such a run's errors, trial by trial)."""
    manifest_file = path / "manifest.json"
    if not manifest_file.is_file():
        raise BadInput(f"{path}: not a run folder (no manifest.json)")
    try:
        manifest = RunManifest.model_validate_json(manifest_file.read_bytes())
    except ValidationError as exc:
        raise invalid(exc, f"{manifest_file}: not a run manifest") from None

    trials = trial_rows(path, manifest, needs=(*HEALTH_COLUMNS, "infra_kind", *METRIC_COLUMNS, "started_at"))
    if need_tested and not (trials["rounds_recorded"] > 0).any():
        errors = int((trials["status"] == TrialOutcome.infra_error.value).sum()) if len(trials) else 0
        kinds = ", ".join(sorted({str(k) for k in trials.get("infra_kind", pd.Series(dtype=object)).dropna()}))
        raise BadInput(f"{path}: no round of any trial was tested, so there is no number to report "
                       f"({errors} infrastructure error(s){f' of kind {kinds}' if kinds else ''}); "
                       f"`harness view {path}` shows each trial's error")
    seen = set(zip(trials["config"], trials["task"], trials["trial"]))
    rows: list[dict] = []
    for cfg in manifest.configs:
        for task in manifest.tasks:
            for k in range(1, manifest.trials + 1):
                if (cfg.name, task, k) not in seen:
                    rows.append(dict(config=cfg.name, task=task, trial=k, status="missing", rounds_recorded=0,
                                     round1=False, round2=False))
    # Before the planned-but-missing rows, which never started. The manifest is written before
    # any trial starts, so its creation bounds them all from below.
    started = trials.dropna(subset=["started_at"]).groupby("config")["started_at"].min() if len(trials) else {}
    if rows:
        trials = pd.concat([trials, pd.DataFrame(rows)], ignore_index=True)
    settings = pd.DataFrame([dict(
        config=cfg.name, rounds=manifest.rounds, planned_trials=manifest.trials,
        suite=f"{manifest.suite} {manifest.suite_version}", suite_hash=manifest.suite_hash,
        contract=cfg.contract, contract_hash=cfg.contract_hash, agent=cfg.agent_profile, agent_hash=cfg.agent_hash,
        aider_version=cfg.aider_version, sampling=sampling_text(cfg.sampling.model_dump()),
        feedback=cfg.feedback, feedback_hash=cfg.feedback_hash,
    ) for cfg in manifest.configs])
    trials = trials.drop(columns=[c for c in SETTING_COLUMNS if c in trials]).merge(settings, on="config", how="left")
    configs = {
        cfg.name: ConfigInfo(
            name=cfg.name, source=f"run {manifest.run_id}", model=cfg.model,
            suite=f"{manifest.suite} {manifest.suite_version}", suite_hash=manifest.suite_hash,
            task_hashes=manifest.task_hashes, tasks=manifest.tasks,
            contract=cfg.contract, contract_hash=cfg.contract_hash,
            agent_profile=cfg.agent_profile, agent_hash=cfg.agent_hash,
            aider_version=cfg.aider_version, edit_format=cfg.edit_format,
            trials=manifest.trials, rounds=manifest.rounds, sampling=cfg.sampling.model_dump(), feedback=cfg.feedback,
            adapter=cfg.adapter, adapter_hash=cfg.adapter_hash,
            trained_on_tasks=cfg.trained_on_tasks, run_dir=str(path), run_config=cfg.name,
            training_unknown=cfg.adapter is not None and cfg.trained_on_tasks is None,
            kind=manifest.kind, unseen_tasks=manifest.unseen_tasks, training_cutoff=cfg.training_cutoff,
            written={t: d for t, d in manifest.written.items() if t in manifest.tasks},
            preregistered=manifest.preregistered, first_trial_at=started.get(cfg.name),
        )
        for cfg in manifest.configs
    }
    return Outcomes(_frame(trials), configs, label=manifest.run_id, sources=[str(path)])


# Rows already read from a run's result.json files, each with the file's size and mtime:
# a report on a 100,000-trial run then parses only the results written since, and
# stats the rest. A derived file; deleting it costs one slow report.
ROW_CACHE = ".report-rows-2.parquet"  # numbered by the facts its rows hold: an older one is left unread
_STAMP = ("file", "mtime_ns", "size")


def _result_stats(config_dir: Path):
    """(relative path, stat) of each <config>/<task>/trial-<k>/result.json."""
    if not config_dir.is_dir():
        return
    with os.scandir(config_dir) as tasks:
        for task in tasks:
            if not task.is_dir():
                continue
            with os.scandir(task.path) as trials:
                for trial in trials:
                    if trial.name.startswith("trial-"):
                        try:
                            st = os.stat(os.path.join(trial.path, "result.json"))
                        except (FileNotFoundError, NotADirectoryError):
                            continue
                        yield f"{config_dir.name}/{task.name}/{trial.name}/result.json", st


def trial_rows(path: Path, manifest: RunManifest, cache: str = ROW_CACHE,
               read: Callable[[Path, list[str]], list[dict]] = read_rows, needs: tuple[str, ...] = ()) -> pd.DataFrame:
    """One row per result.json of the run's configurations, from the row cache where the
    file is unchanged, parsed where it is new or rewritten (a resumed trial). `read` turns
    files into rows (the report's facts by default; the viewer reads more, into a cache of
    its own); a cache without every column in `needs` (an earlier version's) is read anew."""
    by_name = {cfg.name: cfg for cfg in manifest.configs}
    found = [(rel, st.st_mtime_ns, st.st_size) for cfg in manifest.configs for rel, st in _result_stats(path / cfg.name)]
    current = pd.DataFrame(found, columns=list(_STAMP))
    try:
        cached = pd.read_parquet(path / cache)
        if not set(needs) <= set(cached.columns):
            raise ValueError("written by an earlier version, with fewer columns")
    except Exception:  # absent, unreadable, or from another version: read everything
        cached = pd.DataFrame(columns=list(_STAMP))
    still = cached.merge(current, on=list(_STAMP), how="inner") if len(cached) else cached
    fresh = current[~current["file"].isin(set(still["file"]))] if len(still) else current
    rows = read(path, list(fresh["file"]))
    for rel, row in zip(fresh["file"], rows):
        cfg = by_name[rel.split("/", 1)[0]]
        row.update(config=cfg.name)
    parsed = pd.concat([fresh.reset_index(drop=True), pd.DataFrame(rows)], axis=1)
    parts = [t for t in (still, parsed) if len(t)]
    table = pd.concat(parts, ignore_index=True) if parts else pd.DataFrame(
        columns=[*_STAMP, "config", "task", "trial", "status", "rounds_recorded"])
    if rows or len(still) != len(cached):
        try:
            with written_atomically(path / cache) as tmp:
                table.to_parquet(tmp, index=False)
        except InfraError:
            pass  # a read-only run folder: the report is right, only slower next time
    return table.drop(columns=list(_STAMP))


# --- outcomes files ----------------------------------------------------------------------

_TRUE = {"true", "1", "yes", "y", "t", "pass", "passed"}
_FALSE = {"false", "0", "no", "n", "f", "fail", "failed"}


def load_outcomes_file(path: Path) -> Outcomes:
    """A CSV or Parquet file, one row per task-trial. An empty round2 where round1 is false
    is a trial whose round 2 ended in an infrastructure error: round 1 counts, round 2 not."""
    suffix = path.suffix.lower()
    if not path.is_file():
        raise BadInput(f"{path}: no such outcomes file")
    try:
        if suffix == ".csv":
            table = pd.read_csv(path)
        elif suffix in (".parquet", ".pq"):
            table = pd.read_parquet(path)
        else:
            raise BadInput(f"{path}: outcomes file must end in .csv or .parquet")
    except BadInput:
        raise
    except Exception as exc:  # the readers raise a dozen kinds; all mean "unreadable"
        raise BadInput(f"{path}: cannot read ({type(exc).__name__}: {str(exc).splitlines()[0]})") from None
    missing = [c for c in REQUIRED_COLUMNS if c not in table.columns]
    if missing:
        raise BadInput(f"{path}: missing column{'s' if len(missing) > 1 else ''} "
                       f"{', '.join(missing)} (need {', '.join(REQUIRED_COLUMNS)})")
    if table.empty:
        raise BadInput(f"{path}: no rows")
    must = [c for c in REQUIRED_COLUMNS if c != "round2"]
    if table[must].isna().any().any():
        col = next(c for c in must if table[c].isna().any())
        raise BadInput(f"{path}: empty value in column {col} (row {int(table[col].isna().to_numpy().argmax()) + 1})")
    trial = pd.to_numeric(table["trial"], errors="coerce")
    bad = trial.isna() | (trial != np.floor(trial))
    if bad.any():
        raise BadInput(f"{path}: trial must be a whole number (row {int(bad.to_numpy().argmax()) + 1}: "
                       f"{table['trial'].iloc[int(bad.to_numpy().argmax())]!r})")
    if "rounds" in table:
        rounds = pd.to_numeric(table["rounds"], errors="coerce")
        bad = rounds.isna() | (rounds != np.floor(rounds)) | (rounds < 1)
        if bad.any():
            row = int(bad.to_numpy().argmax())
            raise BadInput(f"{path}: rounds must be a whole number of at least 1 (row {row + 1}: {table['rounds'].iloc[row]!r})")
    frame = table.copy()
    frame["trial"] = trial.astype("int64")
    frame["round1"] = _booleans(frame["round1"], path, "round1")
    faulted = frame["round2"].isna()
    if (faulted & frame["round1"]).any():
        row = int((faulted & frame["round1"]).to_numpy().argmax()) + 1
        raise BadInput(f"{path}: row {row} passes round 1 but has no round2 (round2 must include round1)")
    frame["round2"] = _booleans(frame["round2"].where(~faulted, False), path, "round2")
    # Only simulated feedback can break a first-round pass.
    real = frame["feedback"].fillna("real") != "simulated" if "feedback" in frame else True
    inconsistent = frame["round1"] & ~frame["round2"] & real
    if inconsistent.any():
        row = int(inconsistent.to_numpy().argmax()) + 1
        raise BadInput(f"{path}: row {row} passes round 1 but not within two rounds (round2 must include round1; "
                       "only a row with feedback = simulated may fail after passing)")
    duplicated = frame.duplicated(["config", "task", "trial"])
    if duplicated.any():
        r = frame[duplicated].iloc[0]
        raise BadInput(f"{path}: config {r['config']}, task {r['task']}, trial {r['trial']} appears twice")
    frame["status"] = np.where(faulted, "partial",
                               np.where(frame["round2"], TrialOutcome.passed.value, TrialOutcome.failed.value))
    planned = frame.groupby("config")["trial"].transform("nunique")
    frame["planned_trials"] = frame["planned_trials"] if "planned_trials" in frame else planned
    frame = _frame(frame)
    configs = {}
    for name, rows in frame.groupby("config", sort=True):
        label = {c: _single(rows[c]) for c in ("suite", "contract", "agent", "aider_version")}
        rounds = rows["rounds"].dropna().unique()
        configs[name] = ConfigInfo(
            name=name, source=f"file {path.name}", suite=label["suite"], contract=label["contract"],
            agent_profile=label["agent"], aider_version=label["aider_version"], feedback=_single(rows["feedback"]),
            trials=int(rows["trial"].nunique()), rounds=int(rounds[0]) if len(rounds) == 1 else None,
        )
    return Outcomes(frame, configs, label=path.stem, sources=[str(path)])


def _booleans(column: pd.Series, path: Path, name: str) -> pd.Series:
    if column.dtype == bool:
        return column
    text = column.astype(str).str.strip().str.lower()
    # numbers read from CSV come back as 1.0 / 0.0
    text = text.replace({"1.0": "1", "0.0": "0"})
    known = text.isin(_TRUE | _FALSE)
    if not known.all():
        row = int((~known).to_numpy().argmax())
        raise BadInput(f"{path}: column {name} must be true/false or 1/0 (row {row + 1}: {column.iloc[row]!r})")
    return text.isin(_TRUE)


def _single(values: pd.Series) -> str | None:
    distinct = sorted({str(v) for v in values.dropna().unique()})
    return ", ".join(distinct) if distinct else None


# --- Aider benchmark folders ------------------------------------------------------------


def load_aider_folder(path: Path) -> Outcomes:
    """A folder holding Aider benchmark results. Each benchmark run folder
    (`<date>--<name>`, or the given folder itself) is one trial of the configuration
    `<name>`; several run folders with the same name are its trials 1, 2, ... in date
    order. A result holding only an `exception` (Aider's own record of a crashed test), or
    no test outcomes at all, is an infrastructure error of kind "agent": not counted in
    the harness accounting view, a failure in the aider view, as Aider counts it. An empty
    or unreadable result Aider's summary skips; here it is a trial never written. Results of
    several languages (Aider's <language>/exercises/practice/<exercise>) are named
    `<language>.<exercise>`, as a suite of several languages names its tasks."""
    files = sorted(path.rglob(AIDER_RESULTS))
    if not files:
        raise BadInput(f"{path}: no {AIDER_RESULTS} files under it")
    by_run: dict[Path, list[Path]] = {}
    for f in files:
        by_run.setdefault(_aider_run_dir(path, f), []).append(f)
    language = {f: _aider_language(run_dir, f) for run_dir, found in by_run.items() for f in found}
    several = len(set(language.values()) - {None}) > 1
    runs_of: dict[str, list[Path]] = {}
    for run_dir in sorted(by_run):
        match = _AIDER_RUN_DIR.match(run_dir.name)
        runs_of.setdefault(match["name"] if match else run_dir.name, []).append(run_dir)

    rows: list[dict] = []
    configs: dict[str, ConfigInfo] = {}
    for name, run_dirs in runs_of.items():
        facts: dict[str, set] = {"model": set(), "edit_format": set(), "commit_hash": set()}
        seen: set[str] = set()
        first_row = len(rows)
        for trial, run_dir in enumerate(run_dirs, start=1):
            for f in by_run[run_dir]:
                try:
                    data = json.loads(f.read_text())
                except (OSError, ValueError):
                    data = None  # Aider's summary skips such a file: a try that never finished
                if data is not None and not isinstance(data, dict):
                    raise BadInput(f"{f}: not an Aider results object")
                data = data or {}
                task = str(data.get("testcase") or f.parent.name)
                if several and (of := language[f]) is not None:
                    task = task_name(of, task)
                key = f"{trial}/{task}"
                if key in seen:
                    raise BadInput(f"{f}: exercise {task} appears twice in {run_dir}")
                seen.add(key)
                for k in facts:
                    if data.get(k):
                        facts[k].add(str(data[k]))
                rows.append(_aider_row(name, task, trial, data))
        for row in rows[first_row:]:
            row["planned_trials"] = len(run_dirs)
        configs[name] = ConfigInfo(
            name=name, source=f"aider {path.name}",
            model=", ".join(sorted(facts["model"])) or None,
            edit_format=", ".join(sorted(facts["edit_format"])) or None,
            agent_profile=", ".join(sorted(facts["edit_format"])) or None,
            aider_version=", ".join(sorted(facts["commit_hash"])) or None,
            trials=len(run_dirs),
        )
    frame = _frame(rows)
    if (frame["status"] == "missing").all():
        raise BadInput(f"{path}: no Aider results (every {AIDER_RESULTS} is empty or unreadable)")
    return Outcomes(frame, configs, label=path.name, sources=[str(path)])


def _aider_run_dir(root: Path, results_file: Path) -> Path:
    for parent in results_file.parents:
        if parent == root or _AIDER_RUN_DIR.match(parent.name):
            return parent
    return root


def _aider_language(run_dir: Path, results_file: Path) -> str | None:
    """The language of a result where Aider's layout says it: <language>/exercises/practice/<exercise>/."""
    parts = results_file.relative_to(run_dir).parts
    return parts[0] if len(parts) == 5 and parts[1:3] == ("exercises", "practice") else None


def _aider_row(config: str, task: str, trial: int, data: dict) -> dict:
    """One Aider result as a frame row. Aider's summary counts a result as a completed
    test case unless it is empty or unreadable (here: never written), and as passed when
    its last try passed; a result holding an exception, or no try at all, it counts as a
    failure, which the aider accounting view does too (infra_kind "agent")."""
    tries = data.get("tests_outcomes") or []
    infra_kind = None
    first = len(tries) if tries and tries[-1] else None  # Aider: passed when its last try passed
    if not data:
        status = "missing"
    elif first is not None:
        status = TrialOutcome.passed.value
    elif not tries:
        status, infra_kind = TrialOutcome.infra_error.value, InfraKind.agent.value
    elif "exception" in data:  # the tries tested before it crashed still count
        status, infra_kind = "partial", InfraKind.agent.value
    else:
        status = TrialOutcome.failed.value
    return dict(
        config=config, task=task, trial=trial, status=status, infra_kind=infra_kind, rounds_recorded=first or len(tries),
        round1=first is not None and first <= 1, round2=first is not None and first <= 2,
        malformed_responses=data.get("num_malformed_responses", 0),
        exhausted_context_windows=data.get("num_exhausted_context_windows", 0),
        timeouts=data.get("test_timeouts", 0),
        prompt_tokens=data.get("prompt_tokens", 0),
        completion_tokens=data.get("completion_tokens", 0),
        cost=data.get("cost", 0.0),
        error_outputs=data.get("num_error_outputs", 0),
        user_asks=data.get("num_user_asks", 0),
        lazy_comments=data.get("lazy_comments", 0),
        agent_seconds=data.get("duration", 0.0),
        agent=data.get("edit_format"), aider_version=data.get("commit_hash"),
    )


# --- sources -----------------------------------------------------------------------------


SourceKind = Literal["auto", "outcomes", "aider"]


def load_source(spec: str, runs_dir: Path, kind: SourceKind = "auto", need_tested: bool = True) -> Outcomes:
    """One input by its name: an outcomes file, a run folder, a run id under runs_dir, or
    a folder of Aider results; `kind` forces the reading of an outcomes file or an Aider
    folder. `need_tested`: as load_run's."""
    path = Path(spec)
    if kind == "outcomes":
        return load_outcomes_file(path)
    if kind == "aider":
        if not path.is_dir():
            raise BadInput(f"{spec}: no such folder")
        return load_aider_folder(path)
    if not path.exists() and (runs_dir / spec).is_dir():
        path = runs_dir / spec
    if path.is_file():
        return load_outcomes_file(path)
    if path.is_dir():
        if (path / "manifest.json").is_file():
            return load_run(path, need_tested)
        if next(path.rglob(AIDER_RESULTS), None) is not None:
            return load_aider_folder(path)
        raise BadInput(f"{spec}: neither a run folder (no manifest.json) nor a folder of Aider results")
    raise BadInput(f"{spec}: no such file, folder, or run id under {runs_dir}")


def combine(parts: list[Outcomes]) -> tuple[Outcomes, list[dict[str, str]]]:
    """One Outcomes from several. A configuration name that occurs in more than one part is
    qualified as "<label>:<name>" in each. Returns the renaming applied to each part."""
    owners: dict[str, int] = {}
    for part in parts:
        for name in part.configs:
            owners[name] = owners.get(name, 0) + 1
    frames, configs, renames, sources = [], {}, [], []
    for part in parts:
        rename = {n: (f"{part.label}:{n}" if owners[n] > 1 else n) for n in part.configs}
        for old, new in rename.items():
            if new in configs:
                raise BadInput(f"configuration {new} is given twice")
            configs[new] = part.configs[old].model_copy(update={"name": new})
        frame = part.frame
        if any(old != new for old, new in rename.items()):
            frame = frame.assign(config=frame["config"].map(rename))
        frames.append(frame)
        renames.append(rename)
        sources += part.sources
    frame = pd.concat(frames, ignore_index=True) if len(frames) > 1 else frames[0]
    return Outcomes(frame, configs, label="+".join(p.label for p in parts), sources=sources), renames


Source = tuple[SourceKind, str]


def load(sources: list[Source], runs_dir: Path = Path("runs")) -> Outcomes:
    if not sources:
        raise BadInput("nothing to report: name at least one run, outcomes file or Aider results folder")
    return combine([load_source(spec, runs_dir, kind) for kind, spec in sources])[0]


def load_pair(base: str, new: str, sources: list[Source], runs_dir: Path = Path("runs")) -> tuple[Outcomes, str, str]:
    """The two configurations a comparison names. Each of BASE and NEW is a configuration
    name among the sources given with `specs`, or a source ("runs/x", a run id, a file, an
    Aider folder) holding exactly one configuration, or "SOURCE:CONFIG"."""
    pool = load(sources, runs_dir) if sources else None
    picked = [pick_one(spec, pool, runs_dir) for spec in (base, new)]
    if picked[0].sources == picked[1].sources and list(picked[0].configs) == list(picked[1].configs):
        raise BadInput(f"BASE and NEW are the same configuration ({base})")
    merged, renames = combine(picked)
    (b,), (n,) = renames[0].values(), renames[1].values()
    return merged, b, n


def pick_one(spec: str, pool: Outcomes | None, runs_dir: Path) -> Outcomes:
    """One configuration: a name among `pool`'s, a source holding exactly one, or SOURCE:CONFIG."""
    if pool is not None and spec in pool.configs:
        return pool.only([spec])
    source, config = spec, None
    if not Path(spec).exists() and not (runs_dir / spec).exists() and ":" in spec:
        source, config = spec.rsplit(":", 1)
    part = load_source(source, runs_dir)
    names = list(part.configs)
    if config is None:
        if len(names) != 1:
            raise BadInput(f"{source} holds configs {', '.join(names)}: name one as {source}:CONFIG")
        config = names[0]
    elif config not in part.configs:
        raise BadInput(f"{source} has no config {config} (it has {', '.join(names)})")
    return part.only([config])
