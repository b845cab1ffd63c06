"""The harness's side: a folder for the test process's `sys.path` holding the proxy module
of each candidate module the tests import, and the verdict the proxy leaves.

The folder holds `<module>.py` (two lines: bind this module to a session) and
`_harness_proxy/`, a copy of this package's runtime (the codec, the frames, the client and
the server), which the image's python3 runs with the standard library alone. The
candidate's own folder must not be on the test process's path: only the server imports
from it."""

from __future__ import annotations

import functools
import json
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

PACKAGE = "_harness_proxy"
_RUNTIME = ("codec.py", "frames.py", "wire.py", "ops.py", "proxies.py", "client.py", "server.py")
_VERDICT_READ = 4096


class ProxyConfig(BaseModel):
    """What a proxy module is bound to: which module of which folder, run by which python
    or met on which pipes, within which time bounds, and where a forgery is written down."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    module: str = Field(pattern=r"^[A-Za-z_][A-Za-z0-9_]*$")
    candidate_dir: str
    python: str | None = None  # None: the test process's own interpreter
    # (to the server, from it): named pipes on which a server that the sandbox started as
    # another user meets the test process, so that the candidate can neither signal the
    # test process nor write its verdict file. None: the test process starts the server.
    fifos: tuple[str, str] | None = None
    call_timeout_s: float = Field(10.0, gt=0)
    total_timeout_s: float = Field(60.0, gt=0)  # every call's waiting together
    start_timeout_s: float = Field(30.0, gt=0)
    verdict_path: str | None = None
    log_path: str | None = None  # the candidate's stdout and stderr; None: discarded
    printed_path: str | None = None  # what it printed during each test (client.py); None: not kept
    # where the test process says that a server it was to meet never came (NotStarted): the
    # sandbox's slowness, since none of the candidate's code had run; None: not said
    unstarted_path: str | None = None


def proxy_files(configs: list[ProxyConfig]) -> dict[str, bytes]:
    """The proxy folder's files by relative path: the runtime and one proxy module a config."""
    files = dict(_runtime())
    for config in configs:
        files[f"{config.module}.py"] = (
            f'"""The proxy of the candidate\'s module {config.module!r}, which runs in a process of its own."""\n'
            f"from {PACKAGE}.client import bind\n"
            "__tracebackhide__ = True  # pytest shows the test's import line, then the candidate's frames\n"
            f"bind(globals(), {config.model_dump(mode='json')!r})\n").encode()
    return files


@functools.cache
def _runtime() -> tuple[tuple[str, bytes], ...]:
    """The runtime package's files, read once a process (every round stages them)."""
    here = Path(__file__).parent
    init = b'"""The harness\'s proxy runtime (harness/languages/python/proxy/)."""\n'
    return ((f"{PACKAGE}/__init__.py", init),
            *((f"{PACKAGE}/{name}", (here / name).read_bytes()) for name in _RUNTIME))


def install(proxy_dir: Path, configs: list[ProxyConfig]) -> Path:
    """Write the proxy modules into `proxy_dir` (created) and return it."""
    for rel, data in proxy_files(configs).items():
        (proxy_dir / rel).parent.mkdir(parents=True, exist_ok=True)
        (proxy_dir / rel).write_bytes(data)
    return proxy_dir


def read_verdict(path: Path) -> str | None:
    """Why the proxy found the run forged, or None: its verdict file is absent or empty."""
    try:
        with open(path, "rb") as verdict:
            return verdict_of(verdict.read(_VERDICT_READ))
    except FileNotFoundError:
        return None


def verdict_of(head: bytes) -> str | None:
    """The verdict in a verdict file's first bytes (read back from a sandbox)."""
    line = head.split(b"\n", 1)[0].decode("utf-8", "replace")
    return line.removeprefix("forged: ") if line else None


def printed_by_test(data: bytes) -> dict[str, str]:
    """What the candidate printed during each test, by node id, from the lines the client
    wrote to `printed_path`; a line that does not read (the last one, cut) is left out."""
    found: dict[str, str] = {}
    for line in data.decode("utf-8", errors="replace").splitlines():
        try:
            item = json.loads(line)
        except ValueError:
            continue
        if type(item) is dict and type(item.get("test")) is str and type(item.get("text")) is str:
            found[item["test"]] = found.get(item["test"], "") + item["text"]
    return found
