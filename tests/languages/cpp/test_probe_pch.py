"""The probe's runtime header, precompiled in the C++ image: the image is made from the header
the probe stages, and in the sandbox a probe's driver and main read the precompiled form and
compile to the very objects they compile to without it: the driver with the tasks' warning
flags (-Wpedantic -Werror among them), the main without."""

from __future__ import annotations

import json
import shlex

import pytest

from harness.languages.cpp.probe import calls
from harness.languages.cpp.probe.run import PRECOMPILED_DIR, probe_tree, run_probe, runtime_files
from harness.sandbox.base import Role
from harness.sandbox.image import context_files
from harness.task import load_task

from tests.conftest import ROOT

PRECOMPILED = f"{PRECOMPILED_DIR}/harness_probe.hpp.gch"


def test_the_image_precompiles_the_header_the_probe_stages():
    assert context_files("cpp")["cpp/harness_probe.hpp"] == runtime_files()["include/harness_probe.hpp"]


@pytest.mark.docker
@pytest.mark.parametrize("task_dir", [ROOT / "suites" / "fixed26" / "phone-number",
                                      ROOT / "tests" / "golden" / "sum-of-squares"])
def test_a_probes_driver_and_main_read_the_runtime_precompiled_and_compile_the_same(docker_sandbox, task_dir):
    task = load_task(task_dir)
    driver = calls.driver_source(task, ["1 + 1"])
    with docker_sandbox.session("probe pch") as session:
        run = run_probe(task, task.reference_files(), session, test_unit=(calls.test_unit(task), driver), records="call")
        assert run.status == "ok", run.reason
        tree = probe_tree(task, session)
        got = session.exec(["cat", f"{session.build_root}/{tree.name}/compile_commands.json"], role=Role.builder, timeout_s=30)
        units = {u["file"].rsplit("/", 1)[-1]: u for u in json.loads(got.output)}
        for name in (calls.test_unit(task).rsplit("/", 1)[-1], "probe_main.cpp"):
            unit = units[name]
            assert f"-I{PRECOMPILED_DIR} " in unit["command"]
            without = unit["command"].replace(f"-I{PRECOMPILED_DIR} ", "")
            both = session.exec(["sh", "-c", f"cd {shlex.quote(unit['directory'])} && {unit['command']} -H -o /tmp/with.o 2>/tmp/read &&"
                                 " head -n 1 /tmp/read &&"
                                 f" {without} -o /tmp/without.o && cmp /tmp/with.o /tmp/without.o && echo same"],
                                role=Role.builder, timeout_s=120)
            assert both.output.decode().split() == ["!", PRECOMPILED, "same"], (name, both.output.decode())
