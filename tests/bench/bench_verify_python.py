"""Python candidates verified per second (harness.verify.verify_many, Docker), on the tally
exercise (tests/languages/python/tally.py) judged both ways:

  calls   by its `.meta/verifier.toml` (tests/languages/python/verifier_task.py: 7 calls in
          4 checks), the harness's driver behind the proxy, one round per candidate
  tests   by its own 3 test cases, one pytest round per candidate

The candidates (48 by default): a quarter the reference, a quarter a wrong answer, a
quarter the stub, a quarter a module that does not import, each with a comment naming it,
so no two are the same file. The reference's values are observed (and cached) before the
clock starts; every round is timed on the host, and the verdicts are checked against what
each kind of candidate earns. The machine is shared, so the load average is printed too.

    .venv/bin/python tests/bench/bench_verify_python.py [--workers 2] [--candidates 48] [--rounds 2]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from harness.sandbox.docker import DockerSandbox  # noqa: E402
from harness.verify import verify_many  # noqa: E402
from tests.languages.python.tally import REFERENCE, SOLUTION, STUB, WRONG, write_tally  # noqa: E402
from tests.languages.python.verifier_task import write_verified_tally  # noqa: E402

KINDS = {"reference": REFERENCE, "wrong": WRONG, "stub": STUB, "broken": "def add(:\n"}
EARNS = {"calls": {"reference": ("ok", 1.0), "wrong": ("ok", 0.5), "stub": ("ok", -1.0),
                   "broken": ("compile_error", -1.0)},
         "tests": {"reference": ("ok", 1.0), "wrong": ("ok", 0.3333), "stub": ("ok", -1.0),
                   "broken": ("compile_error", -1.0)}}


def candidates(n: int) -> tuple[list[str], list[dict[str, bytes]]]:
    kinds = [list(KINDS)[i % len(KINDS)] for i in range(n)]
    return kinds, [{SOLUTION: f"# candidate {i} ({kind})\n{KINDS[kind]}".encode()} for i, kind in enumerate(kinds)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--candidates", type=int, default=48)
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-verify-python-") as scratch:
        os.environ["HARNESS_CACHE_DIR"] = str(Path(scratch) / "cache")
        tasks = {"calls": write_verified_tally(Path(scratch) / "calls"), "tests": write_tally(Path(scratch) / "tests")}
        box = DockerSandbox()
        kinds, files = candidates(args.candidates)
        for task in tasks.values():  # the reference's values, observed and cached before the clock starts
            verify_many(task, [task.reference_files()], sandbox=box, workers=1)
        print(f"load average before: {os.getloadavg()[0]:.2f}; {args.candidates} candidates, {args.workers} workers, Docker")
        for mode, task in tasks.items():
            seconds = []
            for _ in range(args.rounds):
                started = time.perf_counter()
                verdicts = verify_many(task, files, sandbox=box, workers=args.workers)
                seconds.append(time.perf_counter() - started)
                wrong = [(k, v.status.value, round(v.reward, 4)) for k, v in zip(kinds, verdicts)
                         if (v.status.value, round(v.reward, 4)) != EARNS[mode][k]]
                if wrong:
                    raise SystemExit(f"{mode}: verdicts not as expected: {wrong[:5]}")
            median = statistics.median(seconds)
            statuses = dict(Counter(v.status.value for v in verdicts))
            print(f"{mode:5}  median {median:6.2f} s  {args.candidates / median:5.2f} candidates/s  "
                  f"rounds {[round(s, 2) for s in seconds]}  statuses {statuses}")
        print(f"load average after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
