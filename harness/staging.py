"""What a round builds from a workspace, in any language: the task's protected files as the
task ships them, the solution files and the files the model created from the workspace; a
workspace that changed a protected file, created a build file or named a file the path
check refuses is flagged as tampered and overruled."""

from __future__ import annotations

import signal
from pathlib import Path
from typing import Iterable, Mapping

from .file_names import refusal
from .fs import read_files
from .task import Task

# Files of the agent's own that may appear in a workspace and are never the model's work.
_AGENT_FILES = (".aider",)


def workspace_files(workspace: Path | Mapping[str, bytes]) -> dict[str, bytes]:
    """Every regular file of a workspace folder (or the files given), by relative path."""
    if isinstance(workspace, Mapping):
        return dict(workspace)
    return read_files(Path(workspace))


def created_files(task: Task, provided: Iterable[str]) -> list[str]:
    """The files of a workspace that the task does not ship: the ones the model created."""
    shipped = set(task.shipped_files)
    return sorted(f for f in provided if f not in shipped and not f.startswith(_AGENT_FILES))


def stage_files(task: Task, workspace: Path | Mapping[str, bytes]) -> tuple[dict[str, bytes], list[str]]:
    """The files the sandbox builds, and the protected files the workspace tried to change.
    Files the model created go into the build tree too (whether they compile is the task's
    CMake's decision, as in a real checkout), except build files: a created CMake file is
    an attempt to change the build, refused and flagged like an edited one. So is a name
    the path check refuses (file_names.py): it is never staged."""
    provided = workspace_files(workspace)
    tampered = [rel for rel in provided if refusal(rel) is not None]
    provided = {rel: data for rel, data in provided.items() if rel not in tampered}
    files: dict[str, bytes] = {}
    for rel in task.protected_files:
        original = task.read(rel)
        files[rel] = original
        if rel in provided and provided[rel] != original:
            tampered.append(rel)
    stubs = task.stub_files()
    for rel in task.solution_files:
        if rel in provided:
            files[rel] = provided[rel]
        elif rel in stubs:
            files[rel] = stubs[rel]
    for rel in created_files(task, provided):
        if task.is_build_file(rel):
            tampered.append(rel)
        else:
            files[rel] = provided[rel]
    return files, sorted(tampered)


def signal_name(code: int) -> str | None:
    """Shells report death by signal N as 128+N; Popen as -N."""
    num = -code if code < 0 else code - 128 if 128 < code < 128 + 65 else None
    if num is None:
        return None
    try:
        return signal.Signals(num).name
    except ValueError:
        return f"signal {num}"
