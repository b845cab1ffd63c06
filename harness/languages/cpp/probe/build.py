"""Building a probe again and again in one session, for one candidate after another.

The first build of a probe tree in a session is CMake's (configure, then make), and so is
the build of a candidate whose files have other names than the last one's: CMake decides
from which files exist (`if(EXISTS ...)`, `file(GLOB ...)`), and make, finding every staged
file new (SandboxSession.stage), configures again. After such a build the harness knows
what make would do, and more cheaply: it staged the files itself. It keeps, per compiled
unit, a key of what the unit's object was built from, compiles again exactly the units
whose key changed, with CMake's own compile commands (compile_commands.json), and links
with CMake's own link line. A candidate that repeats the files built last costs nothing
to build.

What a unit can read decides its key, and any unit can read any staged file: an include
finds a created file before the system's header of that name, a header can include a
.cpp, an `asm` can `.incbin` any file. So a candidate's own units are keyed by every
staged file, by name and content. The other units (the test unit, the probe's main) read
the candidate's code only through its headers and created files; when those are the
task's own (each header as the stub or the reference has it, no file created), those
units read nothing the task did not write, and are keyed by every staged file but the
candidate's sources: a candidate that changes only its .cpp costs one compile and a link.

The keys live in the session's `configured` record, under the tree's name, so they are
forgotten with the build tree (a restart after a timeout) like the configuration itself."""

from __future__ import annotations

import json
import shlex
from typing import Mapping

from ..files import headers, is_source
from ....hashing import hash_files, sha256_bytes
from ....sandbox.base import ExecResult, Role, SandboxSession
from ....task import Task
from ..testrun import BuildTree, configure_and_build, configure_steps


def _commands_key(tree: BuildTree) -> str:
    return f"{tree.name}#commands"


def _unit_key(tree: BuildTree, unit: str) -> str:
    return f"{tree.name}#unit:{unit}"


def read_by_the_tasks_units(task: Task, staged: Mapping[str, bytes]) -> dict[str, bytes]:
    """What the units that are not the candidate's own sources can read of the staged
    files (the module's docstring says why)."""
    mine = [f for f in task.solution_files if is_source(f)]
    known = (task.stub_files(), task.reference_files())
    own_part_known = set(staged) <= {*task.protected_files, *task.solution_files} and all(
        any(staged.get(h) == files.get(h) for files in known) for h in headers(task.solution_files) if h in staged)
    return {f: data for f, data in staged.items() if f not in mine} if own_part_known else dict(staged)


def _keys(task: Task, tree: BuildTree, session: SandboxSession, staged: Mapping[str, bytes],
          units: list[dict]) -> dict[str, str]:
    """Each unit's key, and the link's. A unit is the task's (its test file, the probe's
    main) by its exact path; any other is taken for the candidate's."""
    root = f"{session.src_root}/{tree.name}/"
    tasks = {root + f for f in task.protected_files} | ({tree.test_main} if tree.test_main else set())
    everything, shared = hash_files(staged), hash_files(read_by_the_tasks_units(task, staged))
    keys = {u["file"]: sha256_bytes(f"{shared if u['file'] in tasks else everything}\0{u['file']}".encode())
            for u in units}
    keys["link"] = everything
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
    names = sha256_bytes("\0".join(sorted(staged)).encode())
    known = session.configured.get(_commands_key(tree))
    commands = json.loads(known) if known is not None else None
    if commands is None or commands["names"] != names or configure_steps(task, session, tree):
        result = configure_and_build(task, session, tree)
        commands = _learn_commands(task, session, tree) if result.exit_code == 0 else None
        if commands is not None:
            session.configured[_commands_key(tree)] = json.dumps({**commands, "names": names})
            for unit, key in _keys(task, tree, session, staged, commands["units"]).items():
                session.configured[_unit_key(tree, unit)] = key
        else:
            session.configured.pop(_commands_key(tree), None)
        return result
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
