"""A C++ task's calls prepared for the probe (`languages.language.CallProbe`): the generated
driver (calls.py) takes the place of the task's test file in the task's own build, which
the probe builds beside its test run (run.py) and rebuilds only where a candidate's files
changed (build.py)."""

from __future__ import annotations

from typing import Mapping, Sequence

from ....errors import BadInput
from ....hashing import hash_files
from ....probe.result import ProbeRun
from ....sandbox.base import Role, SandboxSession
from ....staging import stage_files
from ....task import Task
from ...language import CallProbe
from ..cmake import links_harness_main
from ..testrun import drop_build
from .build import read_by_the_tasks_units
from .calls import driver_source, parse_call, test_unit
from .run import probe_tree, run_probe, runtime_hash


def _toolchain(session: SandboxSession) -> str:
    """What compiles the probe, for the reference cache's key."""
    got = session.exec(["sh", "-c", "g++ -dumpfullversion -dumpmachine; cat /etc/debian_version 2>/dev/null"],
                       role=Role.builder, timeout_s=60)
    return f"{session.backend}:{got.output.decode(errors='replace').strip()}"


class CppCallProbe(CallProbe):
    def __init__(self, task: Task, calls: Sequence[str], *, includes: Sequence[str] = (), prelude: str | None = None):
        if not links_harness_main(task):
            raise BadInput(f"{task.slug}: the verifier needs a task that links the harness test main "
                           "(HARNESS_TEST_MAIN in its CMakeLists.txt)")
        self.task = task
        self.calls = list(calls)
        self.unit = (test_unit(task), driver_source(task, self.calls, includes=includes, prelude=prelude or ""))
        self.observations = [sum(step.observe for step in parse_call(c)) for c in self.calls]

    def key(self, session: SandboxSession) -> str:
        return "\n".join([runtime_hash(), self.unit[1], _toolchain(session)])

    def run(self, files: Mapping[str, bytes], session: SandboxSession, *, runs: int = 1) -> ProbeRun:
        return run_probe(self.task, files, session, test_unit=self.unit, records="call", runs=runs)

    def drop(self, session: SandboxSession) -> None:
        drop_build(self.task, session, probe_tree(self.task, session))

    def build_key(self, files: Mapping[str, bytes]) -> str:
        """What the test unit's object depends on (build.py): the task's own headers, or all
        of a candidate that wrote its own."""
        return hash_files(read_by_the_tasks_units(self.task, stage_files(self.task, files)[0]))
