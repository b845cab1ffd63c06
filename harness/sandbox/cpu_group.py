"""A cpu cgroup of each local session's own, where this host lets root make one.

The local backend bounds a session's processes by count (RLIMIT_NPROC of its own users), not
by CPU: the scheduler weighs every process alike, so a candidate that fills its 1200
processes with busy loops takes nearly every core from a concurrent session's compiler or
test run, whose wall-clock limit then fails it for a reason that is not its own. In a group
of its own each session weighs as one, as a Docker container does."""

from __future__ import annotations

import errno
import itertools
import os
import time
from pathlib import Path

_PREFIX = "harness-"
_made = itertools.count()


def _lines(path: str) -> list[str]:
    try:
        return Path(path).read_text().splitlines()
    except OSError:
        return []


def _v1_cpu_mount() -> Path | None:
    for line in _lines("/proc/mounts"):
        parts = line.split()
        if len(parts) >= 4 and parts[2] == "cgroup" and "cpu" in parts[3].split(","):
            return Path(parts[1])
    return None


def _own_v1_path() -> str | None:
    for line in _lines("/proc/self/cgroup"):
        _, controllers, path = line.split(":", 2)
        if "cpu" in controllers.split(","):
            return path
    return None


def _parent() -> Path | None:
    """Where the groups go: beside this process in cgroup v1's cpu hierarchy, or under the
    root of a cgroup v2 hierarchy that delegates cpu to its children (elsewhere v2 forbids a
    group with processes to have children that use a controller)."""
    if os.geteuid() != 0:
        return None
    mount, own = _v1_cpu_mount(), _own_v1_path()
    if mount is not None and own is not None:
        parent = mount / own.lstrip("/")
    else:
        parent = Path("/sys/fs/cgroup")
        in_root = _lines("/proc/self/cgroup") == ["0::/"]
        delegated = any("cpu" in line.split() for line in _lines(str(parent / "cgroup.subtree_control")))
        if not (in_root and delegated):
            return None
    return parent if os.access(parent, os.W_OK) else None


_PARENT = _parent()


def available() -> bool:
    return _PARENT is not None


def make() -> str | None:
    """A new group's cgroup.procs, or None where this host gives none; groups that an
    earlier harness process left (it was killed before it closed its sessions) are removed."""
    if _PARENT is None:
        return None
    _remove_orphans()
    group = _PARENT / f"{_PREFIX}{os.getpid()}-{next(_made)}"
    try:
        group.mkdir()
    except OSError:
        return None
    return str(group / "cgroup.procs")


def remove(procs: str | None) -> None:
    """The group gone once its processes are (they are killed before; their exit takes a moment)."""
    if procs is None:
        return
    group = Path(procs).parent
    deadline = time.monotonic() + 5
    while True:
        try:
            group.rmdir()
            return
        except OSError as exc:
            if exc.errno != errno.EBUSY or time.monotonic() > deadline:
                return
            time.sleep(0.05)


def _remove_orphans() -> None:
    assert _PARENT is not None
    for group in _PARENT.glob(f"{_PREFIX}*-*"):
        pid = group.name[len(_PREFIX):].split("-", 1)[0]
        if pid.isdigit() and not Path(f"/proc/{pid}").exists():
            try:
                group.rmdir()
            except OSError:
                pass  # its processes still end, or another harness removed it first


def join(procs: str) -> None:
    """Moves the calling process into the group: in a command's child before it execs (root
    still, before the uid is dropped), so all it starts is counted there."""
    fd = os.open(procs, os.O_WRONLY)
    try:
        os.write(fd, str(os.getpid()).encode())
    finally:
        os.close(fd)
