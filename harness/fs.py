"""Writing and reading the file system, one way everywhere.

Writes are atomic: a file is written under a temporary name in its own folder, flushed to
disk and renamed over its final name; a folder is filled beside its final place and moved
there. A reader, or a process killed halfway, sees the old version or the new one, never a
part. A file that cannot be written is an InfraError of kind disk.

Reading a folder follows one policy for symbolic links: a folder's files are its regular
files, found without following any link; a link is neither listed, followed nor read, and
removing one removes the link, never what it points to. Why: a candidate's workspace holds
whatever a model wrote, which may be a link to the host's files (~/.ssh, /etc) or to a
folder holding itself; following it would copy a host file into a run folder, a sandbox
or a prompt, or never end. Tasks, candidates, workspaces and what is made of them are read
the same way, so a file counts the same wherever it is read. (An adapter's weights are
not a folder read here: a Hugging Face snapshot is links by design, adapter_card.py.)"""

from __future__ import annotations

import os
import shutil
import tempfile
import threading
import tomllib
from collections.abc import Callable, Collection, Iterator
from contextlib import contextmanager
from pathlib import Path

from pydantic import BaseModel

from .errors import BadInput, InfraError, InfraKind

# --- writing ------------------------------------------------------------------------------


@contextmanager
def written_atomically(path: Path) -> Iterator[Path]:
    """A temporary path beside `path` for the block to write (itself, or by a tool it runs);
    when the block ends without an error the file is flushed and renamed to `path`, else
    removed. The temporary name is hidden and ends in .tmp, so no glob for `path`'s kind of
    file finds it."""
    path = Path(path)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
    try:
        yield tmp
        fd = os.open(tmp, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, path)
        dir_fd = os.open(path.parent, os.O_RDONLY)
        try:
            os.fsync(dir_fd)
        finally:
            os.close(dir_fd)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        raise InfraError(InfraKind.disk, f"cannot write {path}: {exc.strerror or exc}") from None
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def atomic_write(path: Path, data: bytes) -> None:
    with written_atomically(path) as tmp:
        tmp.write_bytes(data)


def write_record(path: Path, record: BaseModel) -> None:
    """A record as indented JSON, atomically, its folder made if missing."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(path, record.model_dump_json(indent=2).encode())


def check_writable(path: Path, what: str, is_file: bool = False) -> None:
    """Bad input, in one line naming `what` (an option) and `path`, unless `path` can be
    written: a folder (or, `is_file`, a file in a folder) that exists and can be written,
    or whose nearest existing folder can be. Nothing is created: a dry run checks it too."""
    path = Path(path).absolute()
    here = path.parent if is_file else path
    while not here.exists() and here != here.parent:
        here = here.parent
    if not here.is_dir():
        raise BadInput(f"{what} {path}: cannot be written ({here} is not a folder)")
    try:
        read_only = bool(os.statvfs(here).f_flag & os.ST_RDONLY)
    except OSError as exc:
        raise BadInput(f"{what} {path}: cannot be written ({exc.strerror or exc})") from None
    if read_only or not os.access(here, os.W_OK | os.X_OK):
        why = "a read-only file system" if read_only else "no permission"
        raise BadInput(f"{what} {path}: cannot be written ({here}: {why})")


@contextmanager
def written_folder(dest: Path) -> Iterator[Path]:
    """An empty folder beside `dest` for the block to fill; when the block ends without an
    error it replaces `dest` (whatever was there goes), else it is removed."""
    dest = Path(dest)
    dest.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{dest.name}-", dir=dest.parent))
    os.chmod(staging, 0o755)  # as a folder made by mkdir would be, not mkdtemp's private 0700
    try:
        yield staging
        remove(dest)
        staging.rename(dest)
    finally:
        shutil.rmtree(staging, ignore_errors=True)


# --- reading and removing -----------------------------------------------------------------


def regular_files(root: Path, enter: Callable[[str], bool] | None = None) -> dict[str, Path]:
    """Every regular file under `root` by its relative POSIX path, in path order (folder by
    folder, as sorted Paths are); links are left out and never followed. Folders that cannot
    be read are skipped, and so is every folder whose name `enter` refuses (a checkout's
    `.git`, a virtual environment); a missing `root` has no files."""
    found: dict[str, Path] = {}

    def walk(folder: str, prefix: str) -> None:
        try:
            with os.scandir(folder) as entries:
                listed = list(entries)
        except (FileNotFoundError, NotADirectoryError, PermissionError):
            return
        for entry in listed:
            if entry.is_dir(follow_symlinks=False):
                if enter is None or enter(entry.name):
                    walk(entry.path, f"{prefix}{entry.name}/")
            elif entry.is_file(follow_symlinks=False):
                found[prefix + entry.name] = Path(entry.path)

    walk(str(root), "")
    return {rel: found[rel] for rel in sorted(found, key=lambda rel: rel.split("/"))}


def read_files(root: Path) -> dict[str, bytes]:
    """The contents of `regular_files(root)`."""
    return {rel: path.read_bytes() for rel, path in regular_files(root).items()}


def subfolders(root: Path) -> list[Path]:
    """The folders directly in `root`, sorted; a link to a folder is not one."""
    return sorted(p for p in Path(root).iterdir() if p.is_dir() and not p.is_symlink())


def remove(path: Path) -> None:
    """Remove a file, a link or a folder with everything in it; nothing there is fine."""
    path = Path(path)
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path, ignore_errors=True)
    else:
        path.unlink(missing_ok=True)


def empty_folder(path: Path, keep: Collection[str] = ()) -> None:
    """Remove everything in `path` but the entries named in `keep`."""
    for entry in Path(path).iterdir():
        if entry.name not in keep:
            remove(entry)


def read_toml(path: Path, what: str | None = None) -> dict:
    """A TOML file a user wrote, or one line of bad input saying why it cannot be read:
    `what` names the kind of file where the path alone would not say it."""
    path = Path(path)
    try:
        return tomllib.loads(path.read_text())
    except OSError as exc:
        raise BadInput(f"{path}: {exc.strerror}") from None
    except tomllib.TOMLDecodeError as exc:
        raise BadInput(f"{path}: not a valid {what} (not valid TOML: {exc})" if what
                       else f"{path}: not valid TOML ({exc})") from None
