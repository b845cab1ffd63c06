"""A fresh C++ build tree starts from the image's CMake seed, CMake's detection of the
compiler made once at image build (languages/cpp/assets/image.dockerfile): CMake then
writes the same build files, cache included, as it does in an empty tree, without
detecting the compiler again. For fixed26 tasks of each kind of build (plain, Threads,
Boost, TBB), an upstream exercise's layout (its EXERCISM_TEST_SUITE branch) and a
verifier's probe tree (its own test main and include path)."""

from __future__ import annotations

import shlex

import pytest

from harness.paths import bundled_dir
from harness.sandbox.base import Role, SandboxSession
from harness.task import Task, load_task
from harness.languages.cpp.probe.run import RUNTIME_DIR, probe_tree, runtime_files
from harness.languages.cpp.testrun import BuildTree, configure_steps, stage_files

from tests.upstream_layout import upstream_copy

pytestmark = [pytest.mark.docker]

FIXED26 = bundled_dir("suites") / "fixed26"
SAMPLE = ("clock", "bank-account", "gigasecond", "parallel-letter-frequency")
DETECTING = b"Detecting CXX compiler ABI info"


def configure(task: Task, session: SandboxSession, tree: BuildTree, seeded: bool) -> tuple[bytes, dict[str, str]]:
    """CMake's output for the task's build tree configured anew, with or without the seed,
    and a digest of each file it wrote but its detection's own (CMakeFiles/<version>/ and
    the log of its probes). Of the list of files whose change makes make run CMake again
    (CMakeFiles/Makefile.cmake), CMake's own modules and the detection's files are left out:
    a seeded tree lists neither the detection's modules, which the image's read-only root
    never changes, nor its files, which CMake wrote before."""
    session.configured.pop(tree.name, None)
    seed = session.cmake_seed
    session.cmake_seed = seed if seeded else None
    try:
        steps = configure_steps(task, session, tree)
    finally:
        session.cmake_seed = seed
    build = shlex.quote(f"{session.build_root}/{tree.name}")
    listing = (f"cd {build} && {{ find . -type f ! -path './CMakeFiles/3.*' ! -name CMakeOutput.log ! -name Makefile.cmake"
               " -exec md5sum {} +; grep -v -e '/share/cmake-[^/]*/Modules/' -e 'CMakeFiles/3[.]' CMakeFiles/Makefile.cmake | md5sum"
               " | sed 's|-$|./CMakeFiles/Makefile.cmake|'; } | sort -k 2")
    got = session.exec(["sh", "-c", f"{' && '.join(steps)} && echo @@files && {listing}"], role=Role.builder,
                       timeout_s=300)
    assert got.exit_code == 0, got.output.decode(errors="replace")[-3000:]
    output, _, listed = got.output.partition(b"@@files\n")
    return output, {path: digest for digest, path in (line.split() for line in listed.decode().splitlines())}


def test_a_seeded_tree_gets_the_build_files_of_an_empty_one(docker_sandbox, tmp_path):
    tasks = [load_task(FIXED26 / slug) for slug in SAMPLE]
    tasks.append(load_task(upstream_copy(FIXED26 / "phone-number", tmp_path, b"")))
    probed = load_task(FIXED26 / "phone-number")
    with docker_sandbox.session("cmake seed", "cpp") as session:
        assert session.cmake_seed
        session.stage(RUNTIME_DIR, runtime_files())
        trees = [(task, BuildTree(task.exercise)) for task in tasks] + [(probed, probe_tree(probed, session))]
        for task, tree in trees:
            session.stage(tree.name, stage_files(task, task.reference_files())[0])
            seeded_output, seeded = configure(task, session, tree, seeded=True)
            fresh_output, fresh = configure(task, session, tree, seeded=False)
            assert DETECTING in fresh_output and DETECTING not in seeded_output, tree.name
            assert "./CMakeCache.txt" in seeded and "./compile_commands.json" in seeded, tree.name
            assert seeded == fresh, (tree.name, {p for p in seeded.keys() | fresh.keys() if seeded.get(p) != fresh.get(p)})
