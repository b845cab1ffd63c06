"""A warm pytest: the builder's process that has imported pytest once and forks a test run
for each request, which runs as `python3 -s -m pytest ARGS` would in its folder, with its
output in its console file (languages/python/warm.py says who asks and why).

Run as `python3 -s warm_pytest.py FOLDER [ROOT MODULE]`, with the environment of a test
run but its PYTHONPATH; with ROOT and MODULE it imports MODULE from ROOT too (the proxy's
runtime, which every run's proxy modules import), ROOT left off `sys.path` again.

FOLDER holds the named pipe `reply` (made by the client before it starts this). A request
is the file FOLDER/request, lines `cwd`, `PYTHONPATH` (empty: none), `console`, then
pytest's arguments, one a line, written before the client sends SIGUSR1. The reply is one
line on FOLDER/reply: `ready` once (or `failed`), then for each request the run's exit
status as a shell gives it (128 + N: killed by signal N; 125: no run). The pipe is open
for writing before the child is forked, so a client sees its end if this process dies.

Runs with the standard library, pytest and the harness's proxy runtime; nothing of the
candidate's ever runs in this process (its child imports the proxy modules and the task's
tests, as a fresh process would)."""

from __future__ import annotations

import importlib
import os
import runpy
import signal
import sys
from typing import BinaryIO, NoReturn

# What a run imports after its plugins: the debugging plugin's pdb, the faulthandler's.
_RUN_IMPORTS = ("pdb", "faulthandler", "_pytest._argcomplete", "_pytest.config.compat")


def _preload(extra: list[str]) -> None:
    """pytest, every plugin its configuration loads and what its run imports, as a run
    would import them; `extra`: [ROOT, MODULE] (see above), or []."""
    # Here, not at the top: a python3 without pytest answers `failed` (main), and its
    # client runs pytest afresh, whose error says so.
    import _pytest.config

    for name in dict.fromkeys((*_pytest.config.essential_plugins, *_pytest.config.default_plugins)):
        importlib.import_module(f"_pytest.{name}")
    for name in _RUN_IMPORTS:
        importlib.import_module(name)
    if extra:
        sys.path.insert(0, extra[0])
        importlib.import_module(extra[1])
        sys.path.remove(extra[0])


def _reply(folder: str) -> BinaryIO:
    """The reply pipe, open: the client waits on its other end, and sees its end if this
    process dies before it has written."""
    return open(f"{folder}/reply", "wb", buffering=0)


def _request(folder: str) -> list[str] | None:
    try:
        with open(f"{folder}/request", encoding="utf-8") as request:
            lines = request.read().split("\n")
    except (OSError, UnicodeDecodeError):
        return None
    return lines[:-1] if len(lines) >= 4 and lines[-1] == "" else None


def _run(cwd: str, pythonpath: str, console: str, args: list[str]) -> NoReturn:
    """In the forked child: become `python3 -s -m pytest ARGS` in `cwd` (sys.path as -m and
    PYTHONPATH make it, stdin empty, stdout and stderr the console file) and run it; its
    SystemExit ends this process the way it ends that one."""
    signal.pthread_sigmask(signal.SIG_SETMASK, [])
    signal.signal(signal.SIGUSR1, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.default_int_handler)  # a background job's is ignored
    os.chdir(cwd)
    null, out = os.open("/dev/null", os.O_RDONLY), os.open(console, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    os.dup2(null, 0)
    os.dup2(out, 1)
    os.dup2(out, 2)
    os.close(null)
    os.close(out)
    path = [p for p in pythonpath.split(":") if p]
    if path:
        os.environ["PYTHONPATH"] = pythonpath
    sys.path[:1] = [cwd, *path]  # the script's own folder gives way to the run's
    sys.argv = ["-m", *args]
    runpy.run_module("pytest", run_name="__main__", alter_sys=True)
    raise SystemExit(0)  # pytest's __main__ raises its own


def _status(waited: int) -> int:
    code = os.waitstatus_to_exitcode(waited)
    return 128 - code if code < 0 else code


def main(folder: str, extra: list[str]) -> None:
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGUSR1})
    try:
        _preload(extra)
    except BaseException:
        with _reply(folder) as reply:
            reply.write(b"failed\n")
        raise
    os.chdir("/")
    with _reply(folder) as reply:
        reply.write(b"ready\n")
    while True:
        signal.sigwait({signal.SIGUSR1})
        with _reply(folder) as reply:
            request = _request(folder)
            try:
                child = os.fork() if request is not None else None
            except OSError:  # no process slot left (the container's are shared with the runner's)
                child = None
            if child == 0:
                reply.close()  # the client's wait ends with this process, not with the run
                assert request is not None
                _run(request[0], request[1], request[2], request[3:])
            status = 125 if child is None else _status(os.waitpid(child, 0)[1])
            reply.write(f"{status}\n".encode())


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:4])
