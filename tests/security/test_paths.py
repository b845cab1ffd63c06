"""File names from outside the harness, hostile ones, through every entry point that writes
or reads by such a name: an answer read as Aider's whole-file coder reads it, a candidate's
files staged for the sandbox, the session's own staging, a trial folder shipped back from a
node, a task config (an imported or curriculum folder), a run's workspace read by the
curriculum, and a real GRPO reward call. Every refused name is its answer's failure
(malformed, the name in the record), nothing lands outside, and the batch's other verdicts
stand."""

from __future__ import annotations

import json
import os
import shutil
import stat
import tempfile
from pathlib import Path

import pytest

from harness.agents.editformat import parse_whole, render_whole
from harness.errors import BadInput
from harness.sandbox.base import Sandbox, SandboxSession
from harness.store import RunFolder
from harness.task import load_task
from harness.staging import stage_files

from ..conftest import ROOT

PHONE = load_task(ROOT / "suites" / "fixed26" / "phone-number")
CHAT = list(PHONE.solution_files)

# Names no answer may write: outside the workspace, absolute, through a NUL, a device, a
# look-alike slash or a direction override, a part too long, a trailing slash.
HOSTILE = ["../../x", "a/../../b", "/etc/x", "phone_number.h\0.txt", "x" * 300, "a" + "/a" * 40, "dir/",
           "src/\u2215etc\u2215x", "\u202eh.cpp", "evil\\..\\x", "-rf", "nul", "COM1.h", ".", "a//b"]


@pytest.mark.parametrize("name", [n for n in HOSTILE if len(n) <= 250])  # a longer line is no name to Aider
def test_an_answer_naming_a_hostile_file_is_malformed_and_writes_nothing(name):
    answer = render_whole({"phone_number.cpp": "int x;\n"}) + f"\n{name}\n```\nowned\n```\n"
    got = parse_whole(answer, CHAT)
    assert not got.ok and got.files == {}
    assert "may not" in got.malformed and ascii(name)[1:-1][:20] in got.malformed  # the name, in the reason


@pytest.mark.parametrize("name", ["CMakeLists.txt", "phone_number_test.cpp", ".exercism/config.json", ".meta/example.cpp",
                                  "sub/CMakeLists.txt", "x.cmake"])
def test_a_training_answer_may_not_write_the_tasks_tests_or_build(name):
    answer = render_whole({"phone_number.cpp": "int x;\n", name: "owned\n"})
    got = parse_whole(answer, CHAT, allowed=PHONE.may_write)
    assert not got.ok and name in got.malformed
    fine = parse_whole(render_whole({"phone_number.cpp": "int x;\n", "helpers.h": "int h();\n"}), CHAT,
                       allowed=PHONE.may_write)
    assert fine.ok and set(fine.files) == {"phone_number.cpp", "helpers.h"}


def test_staging_a_candidate_drops_and_flags_every_hostile_name():
    files = {name: b"owned" for name in HOSTILE} | {"phone_number.cpp": b"int x;\n"}
    staged, tampered = stage_files(PHONE, files)
    assert not set(HOSTILE) & set(staged)
    assert set(HOSTILE) <= set(tampered)
    assert staged["phone_number.cpp"] == b"int x;\n"


class _Session(SandboxSession):
    """The base session's staging alone (no backend: staging is host-side)."""

    src_root = build_root = scratch_root = "/nowhere"
    runner_spaces = ()
    test_main = None

    def _empty(self) -> None: ...

    def exec(self, *a, **k):
        raise AssertionError("not run")

    def _close(self) -> None: ...


class _Box(Sandbox):
    backend = "none"
    isolation = "none"

    def session(self, label: str = "", language: str | None = None) -> SandboxSession:
        return _Session(self)


@pytest.fixture
def contained_tmp(tmp_path, monkeypatch):
    """Temporary folders deep inside tmp_path: a name that climbs out of staging lands in
    tmp_path, where the test looks, never in this machine's /tmp or /."""
    deep = tmp_path / "a" / "b" / "c" / "d"
    deep.mkdir(parents=True)
    os.chmod(tmp_path / "a", 0o700)
    monkeypatch.setattr(tempfile, "tempdir", str(deep))
    return tmp_path


def _written_under(root: Path, data: bytes = b"owned") -> list[Path]:
    return [p for p in root.rglob("*") if p.is_file() and not p.is_symlink() and p.read_bytes() == data]


def test_the_sessions_staging_refuses_a_name_that_leaves_it_and_chmods_nothing_above(contained_tmp):
    session = _Box().session()
    outside = contained_tmp / "abs" / "x"
    for name in ["../../../../x", "../../../../../x", "ok/../../../../../y", str(outside), "link/x"]:
        if name == "link/x":
            (session.staging / "t").mkdir(exist_ok=True)
            os.symlink(contained_tmp / "abs", session.staging / "t" / "link", target_is_directory=True)
        with pytest.raises(Exception):
            session.stage("t", {name: b"owned", "fine.cpp": b"int x;\n"})
    assert _written_under(contained_tmp) == []
    assert stat.S_IMODE(os.stat(contained_tmp / "a").st_mode) == 0o700  # no chmod outside the staging root
    session.stage("t", {"fine.cpp": b"int x;\n", "sub/ok.h": b"int h();\n"})
    assert (session.staging / "t" / "sub" / "ok.h").read_bytes() == b"int h();\n"
    session.close()


def test_a_trial_shipped_back_from_a_node_cannot_write_outside_its_folder(tmp_path):
    trial = tmp_path / "run" / "trial-1"
    trial.mkdir(parents=True)
    for name in ["../../escaped", str(tmp_path / "abs")]:
        with pytest.raises(Exception):
            RunFolder.write_files(trial, {name: b"owned", "result.json": b"{}"})
    assert _written_under(tmp_path) == []


def _task_folder(tmp_path: Path, config: dict, link: str | None = None) -> Path:
    folder = tmp_path / "imported" / "evil-task"
    shutil.copytree(PHONE.path, folder)
    (folder / ".meta" / "config.json").write_text(json.dumps(config))
    if link:
        (folder / link).unlink()
        os.symlink("/etc/passwd", folder / link)
    return folder


@pytest.mark.parametrize("files, link", [
    ({"solution": ["../" * 20 + "etc/passwd"], "test": ["phone_number_test.cpp"], "example": [".meta/example.cpp"]}, None),
    ({"solution": ["/etc/passwd"], "test": ["phone_number_test.cpp"], "example": [".meta/example.cpp"]}, None),
    ({"solution": ["phone_number.h", "phone_number.cpp"], "test": ["phone_number_test.cpp"],
      "example": [".meta/example.cpp"]}, "phone_number.h"),
])
def test_an_imported_task_naming_a_file_outside_itself_or_a_link_is_refused(tmp_path, monkeypatch, files, link):
    from harness.suite import import_suite

    monkeypatch.setenv("HARNESS_STATE_DIR", str(tmp_path / "state"))
    folder = _task_folder(tmp_path, {"files": files}, link)
    with pytest.raises(BadInput) as exc:
        load_task(folder)
    assert "passwd" in str(exc.value) or "link" in str(exc.value)
    with pytest.raises(BadInput):
        import_suite(folder.parent, "evil-import")


def test_the_curriculum_never_reads_a_solution_file_that_is_a_link(tmp_path):
    from harness.curriculum.candidates import starting_code

    secret = tmp_path / "secret.txt"
    secret.write_bytes(b"the host's secret")
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    os.symlink(secret, workspace / "phone_number.h")
    (workspace / "phone_number.cpp").write_bytes(b"int edited;\n")
    got = starting_code(PHONE, workspace)
    assert b"secret" not in got["phone_number.h"] and got["phone_number.h"] == PHONE.stub_files()["phone_number.h"]
    assert got["phone_number.cpp"] == b"int edited;\n"


@pytest.mark.slow
@pytest.mark.docker
def test_a_grpo_reward_call_with_hostile_names_writes_nothing_outside_and_keeps_the_other_verdicts(contained_tmp):
    """The issue's attack, through the reward function TRL calls: a completion whose block
    is named ../../../../x climbed out of the staging folder, an absolute one created host
    folders and then ended the batch."""
    from harness.train.config import RuntimeSettings
    from harness.train.rewards import GrpoReward, RepairJudge, SandboxVerifier

    ref = {k: v.decode() for k, v in PHONE.reference_files().items()}
    bad = {k: v.decode() for k, v in
           {p.name: p.read_bytes() for p in (PHONE.path / ".meta" / "faulty" / "keeps-country-code").iterdir()}.items()}
    absolute = contained_tmp / "abs" / "x"
    completions = [
        render_whole(ref),
        render_whole({**ref, "../../../../x": "owned"}),
        render_whole({**ref, str(absolute): "owned"}),
        render_whole(bad),
        render_whole({**ref, "CMakeLists.txt": "owned"}),
    ]
    judge = RepairJudge(SandboxVerifier(RuntimeSettings(sandbox="docker", verify_workers=1)))
    reward = GrpoReward({"repair": judge})
    try:
        got = reward(prompts=[""] * 5, completions=completions, environment=["repair"] * 5,
                     target=[str(PHONE.path)] * 5)
        statuses = reward.take_stats().statuses
    finally:
        reward.close()
    assert got[0] == 1.0 and got[1] == got[2] == got[4] == -1.0 and -1.0 < got[3] < 1.0
    assert statuses["malformed"] == 3
    assert _written_under(contained_tmp) == [] and not absolute.parent.exists()
