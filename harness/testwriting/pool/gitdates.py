"""When a function's lines last changed, from the git checkout it lies in: the author date
of the last commit that touched them (`git log -L`), the day its code as it stands was
written. A file whose content differs from HEAD's has no date (its lines are not HEAD's).

The checkout is untrusted, and a repository's own config can name programs that git runs
(an fsmonitor hook, diff and textconv drivers, a signature checker, clean filters): each
call turns those off, and whether a file is as committed is decided by hashing it here, as
git names a blob, never by `git status` (which would run a clean filter)."""

from __future__ import annotations

import datetime
import hashlib
import shutil
import subprocess
from functools import cache
from pathlib import Path

# Each a program a repository's config could make `git log` or `rev-parse` start.
_SAFE = ("-c", "core.fsmonitor=false", "-c", "core.hooksPath=/dev/null", "-c", "log.showSignature=false",
         "-c", "diff.external=", "-c", "core.pager=cat")


def _git(root: Path, *args: str) -> str | None:
    git = shutil.which("git")
    if git is None:
        return None
    try:
        done = subprocess.run([git, *_SAFE, "-C", str(root), *args], capture_output=True, text=True, timeout=60,
                              stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.stdout.strip() if done.returncode == 0 else None


def checkout_root(folder: Path) -> Path | None:
    """The top of the git checkout `folder` lies in, or None."""
    top = _git(folder, "rev-parse", "--show-toplevel")
    return Path(top) if top else None


def head(root: Path) -> str | None:
    return _git(root, "rev-parse", "HEAD")


@cache
def as_committed(root: Path, rel: str) -> bool:
    """Whether `rel`'s bytes are HEAD's blob of it (the sha1 git gives a blob's content)."""
    blob = _git(root, "rev-parse", f"HEAD:{rel}")
    data = (root / rel).read_bytes()
    return blob == hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


@cache
def last_change(root: Path, rel: str, start: int, end: int) -> datetime.date | None:
    """The author date of the last commit that changed lines start..end of `rel`."""
    if not as_committed(root, rel):
        return None
    out = _git(root, "log", "-1", "--no-patch", "--no-textconv", "--no-ext-diff", "--format=%as",
               f"-L{start},{end}:{rel}", "HEAD")
    try:
        return datetime.date.fromisoformat(out.splitlines()[0]) if out else None
    except ValueError:
        return None
