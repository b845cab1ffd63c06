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
from ..languages import LAYOUTS

DOCKERD_LOG = Path("/var/log/harness-dockerd.log")


def docker_client(timeout: int = 120):
    """A client of a live engine, or SandboxUnavailable. Image builds want a long
    `timeout` (one API call streams the whole build)."""
    # The docker package takes 0.1 s to import: only where the engine is used, not for every command that names a sandbox.
    import docker

    try:
        client = docker.from_env(timeout=timeout)
        client.ping()
        return client
    except Exception as exc:
        raise SandboxUnavailable(f"no Docker engine reachable ({exc.__class__.__name__})") from None


def engine_reachable() -> bool:
    try:
        docker_client(timeout=10).close()
        return True
    except SandboxUnavailable:
        return False


def _wait_for_engine(seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if engine_reachable():
            return True
        time.sleep(0.5)
    return False


# What each sandbox needs from Debian on the host: the Docker engine; debootstrap to make
# the image's base offline; and for the local backend bubblewrap and the toolchain the image
# carries, every language's (a language added to the image is added here too).
DOCKER_PACKAGES = ("docker.io", "debootstrap")
LOCAL_PACKAGES = ("bubblewrap", *sorted({p for layout in LAYOUTS.values() if layout.runs_locally
                                          for p in layout.image_packages}))


def missing_packages(names) -> list[str]:
    missing = []
    for name in names:
        proc = subprocess.run(["dpkg-query", "-W", "-f=${Status}", name], capture_output=True, text=True)
        if "install ok installed" not in proc.stdout:
            missing.append(name)
    return missing


def install_packages(names, log=print) -> list[str]:
    """apt-get install whichever of `names` are missing (root only); returns those it
    installed. Raises SandboxUnavailable when it cannot."""
    if shutil.which("dpkg-query") is None:
        return []
    missing = missing_packages(names)
    if not missing:
        return []
    if os.geteuid() != 0:
        raise SandboxUnavailable(f"missing Debian packages {', '.join(missing)}, and only root can install them")
    log(f"installing Debian packages: {' '.join(missing)}")
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    for cmd in (["apt-get", "update", "-q"], ["apt-get", "install", "-y", "-q", "--no-install-recommends", *missing]):
        proc = subprocess.run(cmd, env=env, capture_output=True, text=True)
        if proc.returncode != 0:
            tail = (proc.stderr or proc.stdout).strip().splitlines()[-1:] or ["(no output)"]
            raise SandboxUnavailable(f"{' '.join(cmd[:3])} failed: {tail[0]}")
    return missing


def ensure_engine(log=print, wait_s: float = 90.0) -> str:
    """Return how the engine became available ('running', 'started', 'installed and
    started'), or raise SandboxUnavailable saying why it could not."""
    if engine_reachable():
        return "running"
    if os.geteuid() != 0:
        raise SandboxUnavailable(
            "no Docker engine is reachable and this is not root, so none can be installed or started"
        )
    how = "installed and started" if install_packages(DOCKER_PACKAGES, log) else "started"
    if shutil.which("dockerd") is None:
        raise SandboxUnavailable("docker.io is installed but there is no dockerd on PATH")
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
