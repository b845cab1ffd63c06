"""A real Ray cluster of two nodes on this machine, for the executor's tests and benchmark:
`ray start --head` and a second `ray start --address`, each with its own CPUs and
`sandbox` resource, in a temporary folder of their own, on ports picked free, so that no
other cluster of this machine is touched. Stopping ends both process groups and any
process left that names the cluster's folder (Ray's workers), by their ids."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tests.conftest import ROOT

RAY = Path(sys.executable).parent / "ray"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _ports() -> list[str]:
    flags = ("--node-manager-port", "--object-manager-port", "--metrics-export-port", "--runtime-env-agent-port",
             "--dashboard-agent-listen-port", "--dashboard-agent-grpc-port", "--min-worker-port")
    out = []
    for flag in flags:
        out += [flag, str(_free_port())]
    # The workers' ports: a range of its own above the picked ones (0 = no upper bound).
    return out + ["--max-worker-port", "0"]


class LocalCluster:
    def __init__(self, cpus: tuple[float, float] = (1, 1), sandboxes: tuple[int, int] = (1, 1)):
        self.cpus, self.sandboxes = cpus, sandboxes
        self.root = Path(tempfile.mkdtemp(prefix="ray-", dir="/tmp"))  # short: Ray's socket paths must fit
        self.port = _free_port()
        self.address = f"127.0.0.1:{self.port}"
        self.head: subprocess.Popen | None = None
        self.second: subprocess.Popen | None = None

    def _start(self, args: list[str], cpus: float, sandboxes: int, name: str) -> subprocess.Popen:
        env = {**os.environ, "PYTHONPATH": str(ROOT), "RAY_USAGE_STATS_ENABLED": "0"}
        return subprocess.Popen(
            [str(RAY), "start", "--block", "--disable-usage-stats", "--num-cpus", str(cpus),
             "--resources", json.dumps({"sandbox": sandboxes, name: 1}), "--object-store-memory", str(100 << 20),
             *args, *_ports()],
            env=env, start_new_session=True, stdout=open(self.root / f"{name}.out", "w"), stderr=subprocess.STDOUT,
        )

    def start(self, timeout_s: float = 120) -> "LocalCluster":
        self.head = self._start(["--head", "--port", str(self.port), "--temp-dir", str(self.root),
                                 "--include-dashboard", "false", "--dashboard-port", str(_free_port())],
                                self.cpus[0], self.sandboxes[0], "head")
        self._wait(1, timeout_s)
        self.second = self._start(["--address", self.address], self.cpus[1], self.sandboxes[1], "second")
        self._wait(2, timeout_s)
        return self

    def _wait(self, nodes: int, timeout_s: float) -> None:
        deadline = time.monotonic() + timeout_s
        script = (f"import ray; ray.init(address={self.address!r}, logging_level='ERROR'); "
                  "print(sum(n['Alive'] for n in ray.nodes()))")
        while time.monotonic() < deadline:
            for proc in (self.head, self.second):
                if proc is not None and proc.poll() is not None:
                    raise RuntimeError(f"ray start exited ({proc.returncode}); see {self.root}")
            got = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60,
                                 env={**os.environ, "RAY_USAGE_STATS_ENABLED": "0"})
            if got.returncode == 0 and got.stdout.strip().splitlines()[-1:] == [str(nodes)]:
                return
            time.sleep(1)
        raise RuntimeError(f"the Ray cluster did not reach {nodes} node(s) within {timeout_s:.0f} s")

    def processes(self) -> list[int]:
        """Every process of this cluster: those that name its folder (raylets, workers)."""
        got = subprocess.run(["pgrep", "-f", str(self.root)], capture_output=True, text=True)
        return [int(p) for p in got.stdout.split() if int(p) != os.getpid()]

    def second_raylet(self) -> int:
        got = subprocess.run(["pgrep", "-P", str(self.second.pid), "-f", "raylet"], capture_output=True, text=True)
        (pid,) = [int(p) for p in got.stdout.split()]
        return pid

    def kill_second_raylet(self) -> None:
        os.kill(self.second_raylet(), signal.SIGKILL)

    def stop(self) -> None:
        # Nothing of a test cluster needs a graceful end (`ray start --block` takes 15 s
        # and more to end on SIGTERM): its process groups, then any process left of it.
        for proc in (self.second, self.head):
            if proc is not None and proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(30)
        for pid in self.processes():
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        shutil.rmtree(self.root, ignore_errors=True)
