"""The run folder on disk. The layout is the data model:

    runs/<run-id>/manifest.json
    runs/<run-id>/.lock                               locked (flock) by the process writing the run
    runs/<run-id>/agent_profile.json, contract.json   what the agent ran with, for --resume
    runs/<run-id>/contract-<config>.json              a configuration's own prompt contract
    runs/<run-id>/<config>/<task>/trial-<k>/
        round-<n>/workspace/          the workspace after the agent's round n
        round-<n>/trajectory.json     RoundTrajectory: messages, model calls, counters
        round-<n>/test_report.json    TestReport of the tests after round n
        agent.log, aider.chat.md      the agent's own log and chat transcript
        harness-error.log             the traceback, when a bug of the harness ended the trial
        result.json                   TrialResult, written last and atomically

A trial is done when its result.json exists and its outcome is not an infrastructure
error; anything else is rerun by `--resume` (a trial a harness bug ended only when asked,
records.TrialResult.rerun_on_resume): from an emptied folder, or, when the error came after
k tested rounds, from round k + 1 with rounds 1..k kept as they are. A result.json of a
schema version this harness does not know is refused, never taken for "not done"."""

from __future__ import annotations

import fcntl
import json
import os
import secrets
from datetime import datetime, timezone
from pathlib import Path
from typing import Mapping, TypeVar

from pydantic import BaseModel, ValidationError

from .errors import BadInput, UnsafeName, invalid
from .file_names import describe, refusal
from .fs import atomic_write, empty_folder, read_files, remove, write_record
from .records import RunManifest, TrialResult

MANIFEST = "manifest.json"
RESULT = "result.json"
PROFILE_FILE = "agent_profile.json"   # the agent profile the run used, verbatim
CONTRACT_FILE = "contract.json"       # the prompt contract, verbatim
HARNESS_ERROR_LOG = "harness-error.log"

_Record = TypeVar("_Record", bound=BaseModel)


def config_contract_file(config: str) -> str:
    """Where a configuration with a prompt contract of its own keeps it, verbatim."""
    return f"contract-{config}.json"


def utc_now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds")


def new_run_id() -> str:
    return f"{datetime.now():%Y%m%d-%H%M%S}-{secrets.token_hex(2)}"


class RunFolder:
    def __init__(self, root: Path):
        # Absolute: the agent's processes run elsewhere and are handed paths inside it.
        self.root = Path(root).absolute()

    @property
    def run_id(self) -> str:
        return self.root.name

    @property
    def manifest_path(self) -> Path:
        return self.root / MANIFEST

    @classmethod
    def create(cls, runs_dir: Path, run_id: str) -> "RunFolder":
        root = Path(runs_dir) / run_id
        if root.exists():
            raise BadInput(f"{root}: a run with this id exists; use --resume {run_id} to continue it")
        try:
            root.mkdir(parents=True)
        except OSError as exc:
            raise BadInput(f"cannot create the run folder {root}: {exc.strerror or exc}") from None
        return cls(root)

    @staticmethod
    def check_new(runs_dir: Path, run_id: str) -> None:
        """What `create` would refuse, refused without creating anything (a dry run)."""
        root = Path(runs_dir) / run_id
        if root.exists():
            raise BadInput(f"{root}: a run with this id exists; use --resume {run_id} to continue it")

    def lock(self) -> "RunLock":
        """The run's writer lock, held: a second process that would write the run is bad
        input until the first ends (a killed one holds nothing: the kernel lets go)."""
        return RunLock(self.root).acquire()

    @classmethod
    def open(cls, runs_dir: Path, run_id: str) -> "RunFolder":
        root = Path(runs_dir) / run_id
        if not (root / MANIFEST).is_file():
            raise BadInput(f"{root}: no such run (no {MANIFEST}); runs live under {runs_dir}")
        return cls(root)

    def read_manifest(self) -> RunManifest:
        try:
            return RunManifest.model_validate_json(self.manifest_path.read_bytes())
        except ValidationError as exc:
            raise invalid(exc, f"{self.manifest_path}: not a run manifest") from None

    def read_record(self, name: str, model: type[_Record]) -> _Record:
        path = self.root / name
        try:
            return model.model_validate_json(path.read_bytes())
        except (OSError, ValidationError) as exc:
            raise BadInput(f"{path}: missing or unreadable ({exc.__class__.__name__}); this run cannot be resumed") from None

    def write_manifest(self, manifest: RunManifest) -> None:
        write_record(self.manifest_path, manifest)

    def trial_dir(self, config: str, task: str, trial: int) -> Path:
        return self.root / config / task / f"trial-{trial}"

    def read_result(self, config: str, task: str, trial: int) -> TrialResult | None:
        """The trial's result, or None when it has none that can be read (never written,
        or broken): "not done". A result of a schema version this harness does not know
        (written by a newer one) is refused: rerunning it would delete a finished trial."""
        path = self.trial_dir(config, task, trial) / RESULT
        try:
            data = path.read_bytes()
        except OSError:
            return None
        try:
            return TrialResult.model_validate_json(data)
        except ValidationError:
            version, known = _schema_version(data), TrialResult.model_fields["schema_version"].default
            if version is not None and version != known:
                raise BadInput(f"{path}: a trial result of schema_version {version}; this harness reads {known} "
                               "(continue the run with the harness that wrote it)") from None
            return None

    def is_done(self, config: str, task: str, trial: int) -> bool:
        result = self.read_result(config, task, trial)
        return result is not None and result.done

    @staticmethod
    def fresh_trial_dir(path: Path) -> Path:
        """An empty folder for a trial that is (re)run: nothing of an earlier attempt stays."""
        remove(path)
        path.mkdir(parents=True, exist_ok=True)
        return path

    @staticmethod
    def keep_rounds(path: Path, rounds: int) -> Path:
        """A trial folder continued after `rounds` tested rounds: those rounds' folders and the
        agent's own logs stay; the rest of the earlier attempt (later rounds, its result) goes."""
        empty_folder(path, keep=_kept(rounds))
        return path

    @staticmethod
    def kept_files(path: Path, rounds: int) -> dict[str, bytes]:
        """What `keep_rounds` keeps, as files (for a trial continued on another machine)."""
        return {rel: data for rel, data in read_files(path).items() if rel.split("/")[0] in _kept(rounds)}

    @staticmethod
    def write_files(path: Path, files: Mapping[str, bytes]) -> None:
        """A trial folder's files by relative name (a trial shipped back from a node holds
        the workspace a model wrote: every name goes through the path check)."""
        for rel, data in files.items():
            problem = refusal(rel, root=path)
            if problem is not None:
                raise UnsafeName(f"refused to write {describe(rel, problem)} in {path}")
            (path / rel).parent.mkdir(parents=True, exist_ok=True)
            atomic_write(path / rel, data)

    @staticmethod
    def write_trial(path: Path, files: Mapping[str, bytes], kept_rounds: int) -> None:
        """A trial that ran on another machine, written from its folder's files as a trial
        run here writes its folder: emptied (but for the rounds it continued from), then
        filled, result.json last."""
        if kept_rounds:
            RunFolder.keep_rounds(path, kept_rounds)
        else:
            RunFolder.fresh_trial_dir(path)
        RunFolder.write_files(path, {rel: data for rel, data in files.items() if rel != RESULT})
        atomic_write(path / RESULT, files[RESULT])


LOCK = ".lock"


class RunLock:
    """An exclusive flock on `<run>/.lock` while one process writes the run. The lock is the
    kernel's, released when the process ends however it ends, so a file left by a killed
    process blocks no one; taking it writes nothing (a resume with nothing to do changes
    nothing in the folder)."""

    def __init__(self, root: Path):
        self.path = Path(root) / LOCK
        self._fd: int | None = None

    def acquire(self) -> "RunLock":
        try:
            fd = os.open(self.path, os.O_RDONLY | os.O_CREAT, 0o644)
        except OSError as exc:
            raise BadInput(f"{self.path}: cannot lock the run ({exc.strerror or exc})") from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            raise BadInput(f"{self.path.parent}: another harness process is writing this run; "
                           "wait for it to end") from None
        self._fd = fd
        return self

    def release(self) -> None:
        if self._fd is not None:
            os.close(self._fd)  # closing the only descriptor lets the lock go
            self._fd = None

    def __enter__(self) -> "RunLock":
        return self

    def __exit__(self, *exc) -> None:
        self.release()


def _kept(rounds: int) -> set[str]:
    return {f"round-{n}" for n in range(1, rounds + 1)} | {"agent.log", "aider.chat.md"}


def _schema_version(data: bytes) -> object:
    """The schema_version a record's JSON states, or None when it is no JSON object."""
    try:
        record = json.loads(data)
    except ValueError:
        return None
    return record.get("schema_version") if isinstance(record, dict) else None
