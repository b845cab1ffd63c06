"""Building a probe again and again in one session, for one candidate after another.

The first build of a probe tree in a session is CMake's (configure, then make). After it,
the harness knows what make would work out, and more cheaply: it staged the files itself.
It keeps, per compiled unit, a key of what the unit's object was built from (the unit's
source and every solution header) and recompiles exactly the units whose key changed,
with CMake's own compile commands (compile_commands.json), then relinks with CMake's own
link line. A candidate that changes only its .cpp costs one compile and one link, and one
that repeats an earlier candidate's files in a row costs nothing to build.

The keys live in the session's `configured` record, under the tree's name, so they are
forgotten with the build tree (a restart after a timeout) like the configuration itself."""

from __future__ import annotations

import json
import shlex
from typing import Mapping

from ..files import headers
from ....hashing import hash_files, sha256_bytes
from ....sandbox.base import ExecResult, Role, SandboxSession
from ....task import Task
from ..testrun import BuildTree, configure_and_build, configure_steps


def _commands_key(tree: BuildTree) -> str:
    return f"{tree.name}#commands"


def _unit_key(tree: BuildTree, unit: str) -> str:
    return f"{tree.name}#unit:{unit}"


def _keys(task: Task, tree: BuildTree, session: SandboxSession, staged: Mapping[str, bytes],
          units: list[dict]) -> dict[str, str]:
    """What each unit's object is built from: its own source (when it is a staged file)
    and every solution header; the link's key is all of them."""
    included = hash_files({f: staged.get(f, b"") for f in headers(task.solution_files)})
    root = f"{session.src_root}/{tree.name}/"
    keys = {}
    for unit in units:
        rel = unit["file"].removeprefix(root) if unit["file"].startswith(root) else None
        own = staged.get(rel, b"") if rel is not None else unit["file"].encode()
        keys[unit["file"]] = sha256_bytes(included.encode() + b"\0" + own)
    keys["link"] = sha256_bytes("\0".join(keys[u["file"]] for u in units).encode())
    return keys


def _learn_commands(task: Task, session: SandboxSession, tree: BuildTree) -> dict | None:
    """CMake's compile commands and link line for the tree, read once after a build."""
    build = f"{session.build_root}/{tree.name}"
    got = session.exec(["sh", "-c", f"cat {shlex.quote(build)}/compile_commands.json; printf '\\0';"
                        f" cat {shlex.quote(build)}/CMakeFiles/{shlex.quote(task.exercise)}.dir/link.txt"],
                       role=Role.builder, timeout_s=60)
    parts = got.output.split(b"\0")
    if got.exit_code != 0 or len(parts) != 2:
        return None
    try:
        units = [{"file": u["file"], "directory": u["directory"], "command": u["command"]} for u in json.loads(parts[0])]
    except (ValueError, KeyError, TypeError):
        return None
    link = parts[1].decode(errors="replace").strip()
    return {"units": units, "link": link} if units and link else None


def build_probe(task: Task, session: SandboxSession, tree: BuildTree, staged: Mapping[str, bytes]) -> ExecResult:
    """Build the staged probe tree: CMake's way the first time, then only what changed."""
    known = session.configured.get(_commands_key(tree))
    if known is None or configure_steps(task, session, tree):
        result = configure_and_build(task, session, tree)
        commands = _learn_commands(task, session, tree) if result.exit_code == 0 else None
        if commands is not None:
            session.configured[_commands_key(tree)] = json.dumps(commands)
            for unit, key in _keys(task, tree, session, staged, commands["units"]).items():
                session.configured[_unit_key(tree, unit)] = key
        return result
    commands = json.loads(known)
    keys = _keys(task, tree, session, staged, commands["units"])
    stale = [u for u in commands["units"] if session.configured.get(_unit_key(tree, u["file"])) != keys[u["file"]]]
    relink = session.configured.get(_unit_key(tree, "link")) != keys["link"]
    steps = [f"cd {shlex.quote(u['directory'])} && {u['command']}" for u in stale]
    if relink:
        steps.append(f"cd {shlex.quote(session.build_root + '/' + tree.name)} && {commands['link']}")
    if not steps:
        return ExecResult(0, b"", False, False, 0.0)
    for unit in [*(u["file"] for u in stale), *(["link"] if relink else [])]:
        session.configured.pop(_unit_key(tree, unit), None)  # until it is built again
    result = session.exec(["sh", "-c", " && ".join(steps)], role=Role.builder, timeout_s=session.limits.build_timeout_s)
    if result.exit_code == 0:
        for unit, key in keys.items():
            session.configured[_unit_key(tree, unit)] = key
    return result
