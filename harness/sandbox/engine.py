"""Bringing up a Docker engine on a machine that has none running: CI machines start bare,
as root, with only the Docker client (if that). Installing Debian's docker.io and starting
dockerd is what a person would do by hand; here it is one call."""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from pathlib import Path

from ..errors import SandboxUnavailable

DOCKERD_LOG = Path("/var/log/harness-dockerd.log")


def engine_reachable() -> bool:
    try:
        import docker

        client = docker.from_env(timeout=10)
        try:
            return bool(client.ping())
        finally:
            client.close()
    except Exception:
        return False


def _wait_for_engine(seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if engine_reachable():
            return True
        time.sleep(0.5)
    return False


def ensure_engine(log=print, wait_s: float = 90.0) -> str:
    """Return how the engine became available ('running', 'started', 'installed and
    started'), or raise SandboxUnavailable saying why it could not."""
    if engine_reachable():
        return "running"
    if os.geteuid() != 0:
        raise SandboxUnavailable(
            "no Docker engine is reachable and this is not root, so none can be installed or started"
        )
    how = "started"
    if shutil.which("dockerd") is None:
        log("no dockerd here: installing Debian's docker.io")
        env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
        for cmd in (["apt-get", "update", "-q"], ["apt-get", "install", "-y", "-q", "docker.io"]):
            proc = subprocess.run(cmd, env=env, capture_output=True, text=True)
            if proc.returncode != 0:
                tail = (proc.stderr or proc.stdout).strip().splitlines()[-1:] or ["(no output)"]
                raise SandboxUnavailable(f"{' '.join(cmd)} failed: {tail[0]}")
        how = "installed and started"
    log("starting dockerd in the background (log: %s)" % DOCKERD_LOG)
    with open(DOCKERD_LOG, "ab") as out:
        subprocess.Popen(
            ["dockerd"], stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
            start_new_session=True,
        )
    if not _wait_for_engine(wait_s):
        tail = DOCKERD_LOG.read_text(errors="replace").strip().splitlines()[-3:]
        raise SandboxUnavailable("dockerd did not come up: " + " | ".join(tail))
    return how
