"""The file-system rules every module shares (harness/fs.py): a folder's files are its
regular files, links neither followed nor read; writes replace whole files and folders."""

from __future__ import annotations

import os

import pytest

from harness.errors import InfraError
from harness.fs import atomic_write, empty_folder, read_files, regular_files, written_atomically, written_folder
from harness.staging import workspace_files


def hostile_workspace(tmp_path):
    """A workspace as a model could leave it: links to a host file, to a host folder and
    to itself, beside its own files."""
    host = tmp_path / "host"
    (host / "secrets").mkdir(parents=True)
    (host / "secrets" / "key").write_text("do not read")
    ws = tmp_path / "ws"
    (ws / "src" / "deep").mkdir(parents=True)
    (ws / "a.cpp").write_text("int a;")
    (ws / "src" / "deep" / "b.h").write_text("int b;")
    (ws / "src-x.h").write_text("x")
    os.symlink(host / "secrets" / "key", ws / "key.cpp")
    os.symlink(host / "secrets", ws / "src" / "secrets")
    os.symlink(ws, ws / "loop")
    return ws, host


def test_a_folder_is_its_regular_files_and_links_are_never_followed(tmp_path):
    ws, _ = hostile_workspace(tmp_path)
    assert list(regular_files(ws)) == ["a.cpp", "src/deep/b.h", "src-x.h"]  # folder by folder, as sorted Paths
    assert read_files(ws) == workspace_files(ws) == {"a.cpp": b"int a;", "src/deep/b.h": b"int b;", "src-x.h": b"x"}
    assert regular_files(tmp_path / "missing") == {}
    assert list(regular_files(ws, enter=lambda name: name != "deep")) == ["a.cpp", "src-x.h"]  # a folder not entered


def test_emptying_a_folder_removes_links_not_what_they_point_to(tmp_path):
    ws, host = hostile_workspace(tmp_path)
    empty_folder(ws, keep={"a.cpp"})
    assert os.listdir(ws) == ["a.cpp"]
    assert (host / "secrets" / "key").read_text() == "do not read"


def test_a_failed_write_leaves_the_old_file_and_no_temporary(tmp_path):
    target = tmp_path / "f.json"
    atomic_write(target, b"old")
    with pytest.raises(RuntimeError):
        with written_atomically(target) as tmp:
            tmp.write_bytes(b"half")
            raise RuntimeError("killed halfway")
    assert target.read_bytes() == b"old" and os.listdir(tmp_path) == ["f.json"]
    with pytest.raises(InfraError, match="disk: cannot write"):
        atomic_write(tmp_path / "no-such-folder" / "f.json", b"x")


def test_a_folder_is_replaced_whole_or_not_at_all(tmp_path):
    dest = tmp_path / "suite"
    with written_folder(dest) as staging:
        (staging / "one").write_text("1")
    with pytest.raises(RuntimeError):
        with written_folder(dest) as staging:
            (staging / "two").write_text("2")
            raise RuntimeError("refused halfway")
    assert os.listdir(dest) == ["one"] and os.listdir(tmp_path) == ["suite"]
    with written_folder(dest) as staging:
        (staging / "two").write_text("2")
    assert os.listdir(dest) == ["two"] and oct(dest.stat().st_mode & 0o777) == "0o755"
