"""Benchmark (not part of the test command): how fast `harness view` opens a run of
10,000 trials, against the goal of under 2 s.

    .venv/bin/python tests/bench/bench_view.py [--configs 4 --tasks 250 --trials 10] [--browser]

A run folder of configs x tasks x trials result.json files is written the way the runner
writes them (report_support.write_run, 20 test cases a round, ~9 kB a file). Then:
1. `harness view RUN` in a fresh process, from its start to the grid page answered: first
   with no row caches beside the results (every file parsed), then again with the caches
   (what a run the harness wrote gets: `harness run` leaves the report's cache, and the
   first view leaves its own).
2. In that warm server: the grid page and one trial page, each asked for 5 times (median).
3. With --browser: headless Chromium loading the grid page (navigation start to the load
   event, as the browser's Navigation Timing reports it), and applying a filter.
4. For reference, `harness report RUN` on the same folder, caches warm.
"""

from __future__ import annotations

import argparse
import resource
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx
import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
HARNESS = str(ROOT / ".venv" / "bin" / "harness")


def write(work: Path, configs: int, tasks: int, trials: int) -> Path:
    from tests.report_support import write_run

    rng = np.random.default_rng(1)
    table = {
        f"config-{c}": {f"task-{t:04d}": [int(x) if x else None for x in rng.choice([0, 1, 2], trials)]
                        for t in range(tasks)}
        for c in range(configs)
    }
    return write_run(work, "bench", table, tests_per_report=20)


def _port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Served:
    """`harness view RUN` in its own process; `ready` is seconds from start to the grid."""

    def __init__(self, run: Path):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        self.port = _port()
        self.url = f"http://127.0.0.1:{self.port}/"
        start = time.perf_counter()
        self.proc = subprocess.Popen([HARNESS, "view", str(run), "--port", str(self.port)],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        while True:
            try:
                page = httpx.get(self.url, timeout=60)
                if page.status_code == 200:
                    break
            except httpx.TransportError:
                if self.proc.poll() is not None:
                    raise SystemExit(self.proc.communicate()[1])
                time.sleep(0.02)
        self.ready = time.perf_counter() - start
        self.grid_bytes = len(page.content)
        self._before = before

    def cpu(self) -> float:
        """CPU seconds (user + system) of the server process, once it has ended: on a
        shared machine the steadier figure."""
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        return (after.ru_utime - self._before.ru_utime) + (after.ru_stime - self._before.ru_stime)

    def median_get(self, path: str, times: int = 5) -> float:
        seconds = []
        for _ in range(times):
            start = time.perf_counter()
            assert httpx.get(self.url + path, timeout=60).status_code == 200
            seconds.append(time.perf_counter() - start)
        return statistics.median(seconds)

    def close(self) -> None:
        self.proc.send_signal(signal.SIGTERM)
        self.proc.wait(30)


def in_browser(url: str) -> tuple[float, float, float]:
    """(seconds to the load event, wall seconds of the navigation, seconds to apply a filter)."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    from tests.browser import FLAGS, _binaries

    binary, driver_path = _binaries()
    options = webdriver.ChromeOptions()
    options.binary_location = binary
    for flag in FLAGS:
        options.add_argument(flag)
    with tempfile.TemporaryDirectory() as profile:
        options.add_argument(f"--user-data-dir={profile}")
        driver = webdriver.Chrome(service=Service(executable_path=driver_path), options=options)
        try:
            driver.get("about:blank")
            start = time.perf_counter()
            driver.get(url)
            wall = time.perf_counter() - start
            load = driver.execute_script(
                "const t = performance.getEntriesByType('navigation')[0]; return t.loadEventEnd / 1000;")
            start = time.perf_counter()
            Select(driver.find_element(By.ID, "f-outcome")).select_by_value("f")
            driver.find_element(By.ID, "shown").text
            return load, wall, time.perf_counter() - start
        finally:
            driver.quit()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--configs", type=int, default=4)
    parser.add_argument("--tasks", type=int, default=250)
    parser.add_argument("--trials", type=int, default=10)
    parser.add_argument("--browser", action="store_true", help="also load the grid in headless Chromium")
    args = parser.parse_args()
    n = args.configs * args.tasks * args.trials
    with tempfile.TemporaryDirectory() as tmp:
        start = time.perf_counter()
        run = write(Path(tmp), args.configs, args.tasks, args.trials)
        print(f"{n:,} trials ({args.configs} configs x {args.tasks} tasks x {args.trials} trials) written in "
              f"{time.perf_counter() - start:.1f} s\n")

        # Each start is stopped as soon as its grid answers, so its CPU time is the start's.
        cold = Served(run)
        cold.close()
        started = Served(run)
        started.close()
        print(f"  {cold.ready:7.3f} s  harness view, start to grid page, no row caches (parses {n:,} files; "
              f"CPU {cold.cpu():.2f} s)")
        verdict = "under" if started.ready < 2 else "over"
        print(f"  {started.ready:7.3f} s  harness view, start to grid page, caches warm ({verdict} the 2 s goal; "
              f"CPU {started.cpu():.2f} s; grid page {started.grid_bytes / 1e6:.1f} MB)")
        warm = Served(run)
        try:
            print(f"  {warm.median_get('index.html'):7.3f} s  grid page from the running server (median of 5)")
            print(f"  {warm.median_get('trial/config-0/task-0000/trial-1.html'):7.3f} s  a trial page "
                  "from the running server (median of 5)")
            if args.browser:
                load, wall, filtering = in_browser(warm.url)
                verdict = "under" if load < 2 else "over"
                print(f"  {load:7.3f} s  Chromium: grid page to its load event ({wall:.3f} s navigation wall; "
                      f"{verdict} the 2 s goal)")
                print(f"  {filtering:7.3f} s  Chromium: a filter over every trial applied")
        finally:
            warm.close()
        start = time.perf_counter()
        subprocess.run([HARNESS, "report", str(run)], check=True, stdout=subprocess.DEVNULL)
        print(f"  {time.perf_counter() - start:7.3f} s  harness report on the same run, for reference")


if __name__ == "__main__":
    main()
