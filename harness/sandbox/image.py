"""The toolchain images, one per language (`harness-<language>`), each tagged by the content
of its build context, so a change to the Dockerfile or to a language's image files makes a
new image and an old run's image stays identifiable by digest. A language's Dockerfile is
sandbox/assets/Dockerfile with that language's packages and build steps
(`Layout.image_packages`, languages/<name>/assets/) filled in; the steps before them are the
same for every language, so the images share those layers. An image is built on first use:
a C++ suite never pays for Go's toolchain.

When no registry is reachable (these machines reach Debian's mirror and PyPI, not Docker
Hub), the base is made offline: debootstrap a minimal bookworm, `docker import` it, and
build the same Dockerfile on top of it."""

from __future__ import annotations

import fcntl
import os
import re
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path
from typing import Callable, Literal

from pydantic import BaseModel

from ..errors import SandboxUnavailable
from ..hashing import hash_files
from ..languages import layout_named
from ..paths import package_file
from .engine import docker_client, install_packages

IMAGE_PREFIX = "harness-"
OFFICIAL_BASE = "debian:bookworm-slim"
OFFLINE_BASE = "harness-bookworm-base:minbase"


class ImageInfo(BaseModel):
    tag: str
    image_id: str
    base: str
    path: Literal["present", "official base", "debootstrap base"]
    seconds: float = 0.0


def image_repo(language: str) -> str:
    """The repository a language's images are tagged in (what a suite's `image` names)."""
    return IMAGE_PREFIX + layout_named(language, "sandbox image").name


# The repository of the one image every language shared before images were per language
# (C++'s name): a suite written then names it whatever its language.
SHARED_REPO = "harness-cpp"


def suite_image(language: str, named: str) -> str:
    """The image repository a suite of `language` is built in, given the one it names."""
    return image_repo(language) if named == SHARED_REPO else named


def context_files(language: str) -> dict[str, bytes]:
    """A language's build context: the Dockerfile, and the language's files under its name."""
    layout = layout_named(language, "sandbox image")
    files = {f"{layout.name}/{name}": package_file("languages", layout.name, "assets", name).read_bytes()
             for name in layout.image_files}
    files |= {f"{layout.name}/{name}": package_file("languages", layout.name, *path.split("/")).read_bytes()
              for name, path in layout.image_sources.items()}
    own = package_file("languages", layout.name, "assets", "image.dockerfile")
    steps = own.read_text().strip() if own.exists() else ""
    dockerfile = package_file("sandbox", "assets", "Dockerfile").read_text()
    dockerfile = dockerfile.replace("@packages@", " ".join(sorted(layout.image_packages))).replace("@language@", steps)
    return {"Dockerfile": dockerfile.encode(), **files}


def image_tag(language: str) -> str:
    return f"{image_repo(language)}:{hash_files(context_files(language))[:12]}"


def find_image(language: str, client=None) -> ImageInfo | None:
    # docker: imported where the engine is used (see engine.docker_client)
    import docker

    client = client or docker_client(timeout=600)
    tag = image_tag(language)
    try:
        img = client.images.get(tag)
    except docker.errors.ImageNotFound:
        return None
    return ImageInfo(tag=tag, image_id=img.id, base=img.labels.get("harness.base", "?"), path="present")


def debian_mirror() -> str:
    """The mirror this machine's apt already uses, so the offline base comes from the same
    place the host's packages do."""
    if os.environ.get("HARNESS_DEBIAN_MIRROR"):
        return os.environ["HARNESS_DEBIAN_MIRROR"]
    sources = [Path("/etc/apt/sources.list"), *sorted(Path("/etc/apt/sources.list.d").glob("*"))]
    for src in sources:
        try:
            text = src.read_text()
        except OSError:
            continue
        for m in re.finditer(r"(https?://\S+/debian)(?:\s|/\s|$)", text):
            if "security" not in m.group(1):
                return m.group(1)
    return "http://deb.debian.org/debian"


def build_offline_base(client, log: Callable[[str], None]) -> str:
    # docker: imported where the engine is used (see engine.docker_client)
    import docker

    try:
        client.images.get(OFFLINE_BASE)
        log(f"offline base {OFFLINE_BASE} already present")
        return OFFLINE_BASE
    except docker.errors.ImageNotFound:
        pass
    if os.geteuid() != 0:
        raise SandboxUnavailable("the base image cannot be pulled and debootstrap needs root")
    if shutil.which("debootstrap") is None:
        install_packages(("debootstrap",), log)
    mirror = debian_mirror()
    with tempfile.TemporaryDirectory(prefix="harness-rootfs-") as tmp:
        rootfs = Path(tmp) / "rootfs"
        log(f"debootstrap --variant=minbase bookworm from {mirror}")
        proc = subprocess.run(
            ["debootstrap", "--variant=minbase", "bookworm", str(rootfs), mirror],
            capture_output=True, text=True,
        )
        if proc.returncode != 0:
            tail = (proc.stderr or proc.stdout).strip().splitlines()[-2:]
            raise SandboxUnavailable("debootstrap failed: " + " | ".join(tail))
        tar_path = Path(tmp) / "rootfs.tar"
        subprocess.run(["tar", "-C", str(rootfs), "-cf", str(tar_path), "."], check=True)
        log(f"docker import as {OFFLINE_BASE}")
        repo, tag = OFFLINE_BASE.split(":")
        client.api.import_image_from_file(str(tar_path), repository=repo, tag=tag)
    return OFFLINE_BASE


def _pick_base(client, log: Callable[[str], None]) -> tuple[str, str]:
    # docker: imported where the engine is used (see engine.docker_client)
    import docker

    try:
        client.images.get(OFFICIAL_BASE)
        return OFFICIAL_BASE, "official base"
    except docker.errors.ImageNotFound:
        pass
    try:
        client.images.pull(OFFICIAL_BASE)
        log(f"pulled {OFFICIAL_BASE}")
        return OFFICIAL_BASE, "official base"
    except docker.errors.APIError as exc:
        reason = (exc.explanation or str(exc)).splitlines()[0][:160]
        log(f"cannot pull {OFFICIAL_BASE} ({reason}); building the base offline")
    return build_offline_base(client, log), "debootstrap base"


# The host's trusted certificates, beside the build context's files but not in its hash: a
# language whose image fetches from a registry at build time (JavaScript's npm) trusts what
# the host trusts (an egress proxy's own authority included), and the image's tag stays the
# same from machine to machine.
HOST_CA = "host-ca.crt"
_HOST_CA_BUNDLE = Path("/etc/ssl/certs/ca-certificates.crt")


def _host_certificates(dest: Path) -> None:
    dest.write_bytes(_HOST_CA_BUNDLE.read_bytes() if _HOST_CA_BUNDLE.is_file() else b"")


def build_image(language: str, force: bool = False, log: Callable[[str], None] = print) -> ImageInfo:
    """Build a language's toolchain image unless an image with its content tag exists."""
    client = docker_client(timeout=600)
    if not force:
        found = find_image(language, client)
        if found is not None:
            return found
    with _build_lock(language):
        # Another process may have built it while this one waited.
        found = None if force else find_image(language, client)
        return found or _build(client, language, log)


@contextmanager
def _build_lock(language: str) -> Iterator[None]:
    """One build of a language's image at a time on this host: a run, a test worker and
    `harness image build` that start together wait for the first, then find its image."""
    # The engine's images are the host's, so the lock is too (not the state folder's, which
    # each test and each user may have of their own).
    path = Path(tempfile.gettempdir()) / f"harness-image-{language}.lock"
    with open(path, "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _build(client, language: str, log: Callable[[str], None]) -> ImageInfo:
    start = time.monotonic()
    base, path = _pick_base(client, log)
    tag = image_tag(language)
    with tempfile.TemporaryDirectory(prefix="harness-image-") as ctx:
        for name, data in context_files(language).items():
            Path(ctx, name).parent.mkdir(parents=True, exist_ok=True)
            Path(ctx, name).write_bytes(data)
        _host_certificates(Path(ctx, HOST_CA))
        log(f"building {tag} on {base}")
        stream = client.api.build(
            path=ctx, tag=tag, buildargs={"BASE": base}, rm=True, forcerm=True, decode=True,
            labels={"harness.base": base},
        )
        for chunk in stream:
            if "error" in chunk:
                raise SandboxUnavailable(f"image build failed: {chunk['error'].strip()}")
            line = chunk.get("stream", "").rstrip()
            if line.startswith("Step "):
                log(line)
    img = client.images.get(tag)
    return ImageInfo(tag=tag, image_id=img.id, base=base, path=path, seconds=round(time.monotonic() - start, 1))


def build_images(languages: list[str], force: bool = False, log: Callable[[str], None] = print) -> list[ImageInfo]:
    """Several languages' images at once: the base made first (every image is built on it),
    then the images side by side, since most of a build waits on Debian's mirror and npm's
    registry rather than on a core. Each log line names its language."""
    missing = [lang for lang in languages if force or find_image(lang) is None]
    if len(missing) > 1:
        _pick_base(docker_client(timeout=600), log)
    with ThreadPoolExecutor(max_workers=max(1, len(missing))) as pool:
        built = dict(zip(missing, pool.map(
            lambda lang: build_image(lang, force=force, log=lambda m: log(f"[{lang}] {m}")), missing)))
    return [built[lang] if lang in built else build_image(lang, log=log) for lang in languages]
