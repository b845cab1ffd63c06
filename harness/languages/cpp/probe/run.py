"""Building and running a probe in a sandbox session.

The probe is the task's own build with three things swapped: the test main is the probe's
(it runs the probe's cases and writes the stream), `<catch2/catch.hpp>` is the recording
stand-in (include/ comes first on the include path), and, when the probe asks calls, the
test file is the generated driver. It is staged and built beside the test run's tree
(`probe/<slug>` under the session's source and build roots), so a session keeps both, and
a candidate that repeats the files built last is not built again (build.py).

The program runs as the sandbox's runner with the stream on fd 4 going to a file, its own
output to another, both read back only once every process of the runner is dead
(`sandbox/capture.py`)."""

from __future__ import annotations

import os
import shlex
from dataclasses import replace
from typing import Mapping

from ....fs import read_files
from ....hashing import hash_files
from ....paths import package_file
from ....sandbox.base import SandboxSession
from ....sandbox.capture import Kept, capture
from ....task import Task
from ..testrun import BuildTree, clean_log
from ....staging import signal_name, stage_files
from .build import build_probe
from ....probe.result import ProbeRun
from ....probe.schema import RecordKind
from ....probe.stream import read_stream

RUNTIME_DIR = ".harness-probe"
# The image's precompiled runtime header (languages/cpp/assets/image.dockerfile), first on a
# probe's include path; absent where there is no image, and GCC then reads the header.
PRECOMPILED_DIR = "/opt/harness/probe-pch"
PROBE_ROOT = "probe"
RECORDS_KEEP = 4 * 1024 * 1024   # far more than a probe of any task writes
OUTPUT_KEEP = 16 * 1024          # the program's own output, for people

def runtime_files() -> dict[str, bytes]:
    """The probe runtime as staged: the stand-in header tree and the probe main."""
    return read_files(package_file("languages", "cpp", "probe", "assets"))


def runtime_hash() -> str:
    return hash_files(runtime_files())


def probe_tree(task: Task, session: SandboxSession) -> BuildTree:
    runtime = f"{session.src_root}/{RUNTIME_DIR}"
    return BuildTree(name=f"{PROBE_ROOT}/{task.exercise}", test_main=f"{runtime}/probe_main.cpp",
                     cmake_args=(f"-DCMAKE_CXX_FLAGS=-I{PRECOMPILED_DIR} -I{runtime}/include",
                                 "-DCMAKE_EXPORT_COMPILE_COMMANDS=ON"))


def run_probe(task: Task, files: Mapping[str, bytes], session: SandboxSession, *, test_unit: tuple[str, str] | None = None,
              records: RecordKind = "assertion", runs: int = 1, observe_all: bool = False) -> ProbeRun:
    """Build `files` (a candidate's, by name; protected files are the task's whatever they
    say) with the probe and run it `runs` times. `test_unit` is (file name, source) of a
    unit that replaces the task's test file (a generated driver, whose records are
    `"call"`s, or a written suite); without it the task's own tests are the cases. Records
    are read as `records` (schema.py). With `observe_all` an assertion that does not hold
    does not end its case (the stand-in for Catch2 reads it from the environment)."""
    staged, tampered = stage_files(task, files)
    if test_unit is not None:
        staged[test_unit[0]] = test_unit[1].encode()
    session.stage(RUNTIME_DIR, runtime_files())
    tree = probe_tree(task, session)
    session.stage(tree.name, staged)
    os.chmod(session.staging / PROBE_ROOT, 0o755)

    build = build_probe(task, session, tree, staged)
    log = clean_log(build.output.decode(errors="replace"), session, tree.name)
    out = ProbeRun("ok", tampered=tampered, build_seconds=round(build.seconds, 3))
    if build.timed_out:
        return replace(out, status="timeout", reason=f"the build timed out after {session.limits.build_timeout_s:g} s",
                       build_log=log)
    if build.exit_code != 0:
        return replace(out, status="compile_error", reason="the candidate does not build", build_log=log,
                       exit_code=build.exit_code)

    binary = shlex.quote(f"{session.build_root}/{tree.name}/{task.exercise}")
    if observe_all:
        binary = f"HARNESS_PROBE_OBSERVE_ALL=1 {binary}"
    keep = (Kept(".records", RECORDS_KEEP), Kept(".output", OUTPUT_KEEP))
    for attempt in range(runs):
        run, got = capture(session, f"{binary} 4>.records >.output 2>&1; code=$?", keep, session.limits.timeout_s)
        out.run_seconds = round(out.run_seconds + run.seconds, 3)
        if run.timed_out:
            out.status, out.reason = "timeout", f"the probe timed out after {session.limits.timeout_s:g} s and was killed"
            return out
        if got is None:
            out.status, out.reason = "incomplete", "the run's output could not be read back (the program flooded it)"
            return out
        code, (kept, output) = got.exit_code, got.contents
        stream = read_stream(kept, records)
        out.streams.append(stream)
        if attempt == 0:
            out.exit_code = code
            out.output = output.decode(errors="replace").strip() or None
        if not stream.complete:
            sig = signal_name(code) if code is not None else None
            out.status = "forged" if stream.forged else "crash" if sig is not None else "incomplete"
            out.reason = f"{stream.problem}" + (f"; the program was killed by {sig}" if sig else f" (exit code {code})")
            return out
    return out
