"""Tasks sent to other machines: a Task names a folder on the driver's disk, which another
node may not have (a user's suite, a curriculum made minutes ago), so it travels as its
files and lands in the node's cache, one folder per content, written once and never
changed (two slots of a node landing it at once both find one whole copy)."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from ..fs import read_files, remove
from ..hashing import hash_files
from ..paths import cache_dir
from ..task import Task

_TREE = "cluster-tasks"


def task_payload(task: Task) -> tuple[dict, dict[str, bytes]]:
    """What a task is made of: its fields (but the folder) and every file of the folder."""
    fields = task.model_dump(exclude={"path"})
    return fields, read_files(task.path)


def landed_task(payload: tuple[dict, dict[str, bytes]]) -> Task:
    """The task of a payload, in this machine's cache."""
    fields, files = payload
    home = cache_dir() / _TREE / hash_files(files)[:24]
    dest = home / fields["slug"]
    if not dest.is_dir():
        home.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=".landing-", dir=home))
        try:
            for rel, data in files.items():
                target = staging / rel
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(data)
            os.chmod(staging, 0o755)
            try:
                staging.rename(dest)
            except OSError:
                if not dest.is_dir():  # not another slot's copy landing first
                    raise
        finally:
            remove(staging)
    return Task(path=dest, **fields)
