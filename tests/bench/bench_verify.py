"""Candidates verified per second on phone-number, all measured in the same run on the
same machine with the same 64 candidates:

  probe         harness.verify.verify_many: one warm session per worker for the whole
                batch, candidates grouped by header so the probe's test unit is compiled
                once per header and worker, the reference's values from the cache;
  old verifier  the verifier the probe replaced (the task's test binary judging itself,
                reporting on an HMAC-authenticated channel, with the checks on the built
                binary), run from a git worktree of --baseline-rev in a subprocess, with
                the sandbox image of that revision (built when missing);
  plain warm    harness test's path (run_tests) in one warm session per worker: what
                building and testing alone costs;
  plain cold    run_tests with a fresh container per candidate (--cold-sample of them).

Wall-clock rates on a shared machine move with everyone else's load, so each path also
reports the CPU seconds its sandbox containers used per candidate (read from each
container's cgroup when its session closes): what a path costs, whatever the load.

The 64 candidates: the reference and the four faulty controls in textual variants (a
comment naming the variant, so every one really recompiles its source), a few with an
edited header (so some test units are compiled again), and sources that do not compile.

    .venv/bin/python tests/bench/bench_verify.py [--workers 2] [--cold-sample 16] [--baseline-rev 56721bc]
        [--rounds N] [--skip-plain]

With --rounds N the probe and the baseline are measured N times each, alternating (A/B/A/B,
so both see the same load), and the medians are reported with every round's figure; the
baseline may be any revision whose verify_many takes the same arguments (issue 28's
defences were measured against cd2683f, the main branch before them: docs/verifiers.md).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import statistics
import threading
import time
import types
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from harness.paths import bundled_dir
from harness.sandbox.base import Role
from harness.sandbox.docker import DockerSandbox
from harness.task import load_task
from harness.languages.cpp.testrun import run_tests
from harness.verify import verify_many

ROOT = Path(__file__).resolve().parents[2]
TASK = load_task(bundled_dir("suites") / "fixed26" / "phone-number")
BASELINE_REV = "56721bc"  # the last commit with the in-process verifier


class MeteredSandbox:
    """A sandbox whose sessions, when closed, add the CPU their container used (cgroup v1
    or v2) to `cpu_seconds`. The baseline imports it from this file, with its own harness."""

    def __init__(self, box):
        self.box, self.cpu_seconds, self.lock = box, 0.0, threading.Lock()

    def session(self, label="", *language):  # a language where the harness's sessions take one
        session = self.box.session(label, *language)
        close = session.close

        def metered_close():
            got = session.exec(["sh", "-c", "cat /sys/fs/cgroup/cpuacct/cpuacct.usage 2>/dev/null"
                                " || awk '/usage_usec/ {print $2 * 1000}' /sys/fs/cgroup/cpu.stat"],
                               role=Role.runner, timeout_s=30)
            with self.lock:
                self.cpu_seconds += float(got.output.split()[0]) / 1e9
            close()

        session.close = metered_close
        return session


# Runs inside the baseline's worktree (its own harness package first on sys.path): verify
# the candidates with that revision's verifier and print seconds and verdicts as JSON.
_BASELINE = r"""
import inspect, json, sys, time
sys.path.insert(0, sys.argv[3])
from bench_verify import MeteredSandbox
from harness.paths import bundled_dir
from harness.sandbox.image import build_image, find_image
from harness.sandbox.docker import DockerSandbox
from harness.task import load_task
from harness.verify import verify_many
lang = ("cpp",) if inspect.signature(find_image).parameters.get("language") else ()  # images per language
if find_image(*lang) is None:
    build_image(*lang, log=lambda m: print(m, file=sys.stderr))
task = load_task(bundled_dir("suites") / "fixed26" / "phone-number")
files = [{k: bytes.fromhex(v) for k, v in c.items()} for c in json.load(open(sys.argv[1]))]
box = DockerSandbox()
verify_many(task, [task.reference_files()], sandbox=box, workers=1)
meter = MeteredSandbox(box)
t0 = time.perf_counter()
verdicts = verify_many(task, files, sandbox=meter, workers=int(sys.argv[2]))
print(json.dumps({"seconds": time.perf_counter() - t0, "cpu_seconds": meter.cpu_seconds,
                  "verdicts": [[v.status.value, v.reward] for v in verdicts]}))
"""


def candidates() -> list[tuple[str, dict[str, bytes]]]:
    ref = TASK.reference_files()
    faulty = {p.name: {f.name: f.read_bytes() for f in p.iterdir()}
              for p in sorted((TASK.path / ".meta" / "faulty").iterdir())}

    def variant(files: dict[str, bytes], tag: str, header: str | None = None) -> dict[str, bytes]:
        out = dict(files)
        out["phone_number.cpp"] = files["phone_number.cpp"] + f"\n// variant {tag}\n".encode()
        if header:
            out["phone_number.h"] = files["phone_number.h"] + f"\n// header {header}\n".encode()
        return out

    out: list[tuple[str, dict[str, bytes]]] = []
    for i in range(24):
        out.append(("correct", variant(ref, f"c{i}", header="A" if i % 6 == 5 else None)))
    for name, files in faulty.items():
        for i in range(7):
            out.append(("buggy", variant(files, f"{name}-{i}", header="B" if i == 6 else None)))
    broken = ref["phone_number.cpp"].replace(b"digits_ += c;", b"digits_ += c")
    for i in range(12):
        out.append(("non-compiling", variant({**ref, "phone_number.cpp": broken}, f"x{i}")))
    assert len(out) == 64
    return out


def rate(n: int, seconds: float) -> float:
    return round(n / seconds, 3) if seconds > 0 else 0.0


def tally(kinds, verdicts) -> dict[str, dict[str, int]]:
    by_kind: dict[str, Counter] = {}
    for kind, (status, reward) in zip(kinds, verdicts):
        by_kind.setdefault(kind, Counter())[f"{status} {reward:+.2f}"] += 1
    return {k: dict(c) for k, c in by_kind.items()}


def baseline(rev: str, files: list[dict[str, bytes]], workers: int) -> dict:
    """The old verifier on the same candidates, from a worktree of `rev`."""
    with tempfile.TemporaryDirectory(prefix="bench-verify-baseline-") as tmp:
        tree = Path(tmp) / "tree"
        subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", str(tree), rev],
                       check=True, capture_output=True)
        try:
            data = Path(tmp) / "candidates.json"
            data.write_text(json.dumps([{k: v.hex() for k, v in c.items()} for c in files]))
            env = {**os.environ, "PYTHONPATH": str(tree)}
            got = subprocess.run([sys.executable, "-c", _BASELINE, str(data), str(workers), str(Path(__file__).parent)],
                                 cwd=tree, env=env,
                                 capture_output=True, text=True)
            if got.returncode != 0:
                return {"error": got.stderr.strip().splitlines()[-1] if got.stderr.strip() else f"exit {got.returncode}"}
            return json.loads(got.stdout.strip().splitlines()[-1])
        finally:
            subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(tree)], capture_output=True)


def plain(sandbox, files: list[dict[str, bytes]], workers: int, warm: bool) -> tuple[float, Counter]:
    """run_tests over the candidates on `workers` threads; a fresh session per candidate
    (cold) or one per worker (warm)."""
    statuses: Counter = Counter()
    chunks = [files[i::workers] for i in range(workers)]

    def work(chunk):
        if warm:
            with sandbox.session("bench plain warm") as s:
                return [run_tests(TASK, f, s).status.value for f in chunk]
        done = []
        for f in chunk:
            with sandbox.session("bench plain cold") as s:
                done.append(run_tests(TASK, f, s).status.value)
        return done

    t0 = time.perf_counter()
    with ThreadPoolExecutor(workers) as pool:
        for got in pool.map(work, chunks):
            statuses.update(got)
    return time.perf_counter() - t0, statuses


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--cold-sample", type=int, default=16, help="how many candidates the cold baseline runs")
    ap.add_argument("--baseline-rev", default=BASELINE_REV, help="the revision whose verifier is the baseline ('' skips it)")
    ap.add_argument("--rounds", type=int, default=1, help="measure the probe and the baseline this many times each, alternating")
    ap.add_argument("--skip-plain", action="store_true", help="only the probe and the baseline")
    args = ap.parse_args()
    sandbox = DockerSandbox()
    kinds, files = zip(*candidates())
    headers = len({f["phone_number.h"] for f in files})
    load_before = round(os.getloadavg()[0], 2)

    # The task's plan and the reference's values are worked out once per process; do it
    # outside the clock, as the baseline does.
    verify_many(TASK, [TASK.reference_files()], sandbox=sandbox, workers=1)
    probes, olds = [], []
    for _ in range(args.rounds):
        meter = MeteredSandbox(sandbox)
        t0 = time.perf_counter()
        verdicts = verify_many(TASK, list(files), sandbox=meter, workers=args.workers)
        probes.append((time.perf_counter() - t0, meter.cpu_seconds))
        probe = tally(kinds, [(v.status.value, v.reward) for v in verdicts])
        assert probe["correct"] == {"ok +1.00": 24}, probe
        assert probe["non-compiling"] == {"compile_error -1.00": 12}, probe
        if args.baseline_rev:
            olds.append(baseline(args.baseline_rev, list(files), args.workers))
    probe_s, probe_cpu = statistics.median(p[0] for p in probes), statistics.median(p[1] for p in probes)
    timed = [o for o in olds if "seconds" in o]
    old = (dict(timed[len(timed) // 2], seconds=statistics.median(o["seconds"] for o in timed),
                cpu_seconds=statistics.median(o["cpu_seconds"] for o in timed)) if timed
           else olds[0] if olds else {"error": "skipped"})
    if args.skip_plain:
        print(json.dumps({"workers": args.workers, "load_before": load_before, "load_after": round(os.getloadavg()[0], 2),
                          "probe_rounds": [[round(a, 2), round(b / len(files), 3)] for a, b in probes],
                          "baseline_rounds": [[round(o["seconds"], 2), round(o["cpu_seconds"] / len(files), 3)]
                                              for o in timed], "probe_verdicts": probe,
                          "baseline_verdicts": tally(kinds, timed[0]["verdicts"]) if timed else old}))
        for label, rounds in (("this tree", [p[0] for p in probes]), (args.baseline_rev, [o["seconds"] for o in timed])):
            if rounds:
                print(f"{label}: median {statistics.median(rounds):.2f} s = {rate(len(files), statistics.median(rounds)):.2f} "
                      f"candidates/s; rounds {', '.join(f'{r:.1f}' for r in rounds)}")
        return
    meter = types.SimpleNamespace(cpu_seconds=probe_cpu)
    warm_meter, cold_meter = MeteredSandbox(sandbox), MeteredSandbox(sandbox)
    warm_s, warm_statuses = plain(warm_meter, list(files), args.workers, warm=True)
    sample = list(files)[: args.cold_sample]
    cold_s, cold_statuses = plain(cold_meter, sample, args.workers, warm=False)

    row = {
        "task": TASK.slug, "candidates": len(files), "distinct_headers": headers, "workers": args.workers,
        "cpus": os.cpu_count(), "load_before": load_before, "load_after": round(os.getloadavg()[0], 2),
        "probe": {"seconds": round(probe_s, 2), "per_second": rate(len(files), probe_s),
                  "cpu_per_candidate": round(meter.cpu_seconds / len(files), 3), "verdicts": probe},
        "old_verifier": ({"rev": args.baseline_rev, "seconds": round(old["seconds"], 2),
                          "per_second": rate(len(files), old["seconds"]),
                          "cpu_per_candidate": round(old["cpu_seconds"] / len(files), 3),
                          "verdicts": tally(kinds, old["verdicts"])}
                         if "seconds" in old else old),
        "plain_warm": {"seconds": round(warm_s, 2), "per_second": rate(len(files), warm_s),
                       "cpu_per_candidate": round(warm_meter.cpu_seconds / len(files), 3), "statuses": dict(warm_statuses)},
        "plain_cold": {"seconds": round(cold_s, 2), "per_second": rate(len(sample), cold_s), "candidates": len(sample),
                       "cpu_per_candidate": round(cold_meter.cpu_seconds / len(sample), 3),
                       "statuses": dict(cold_statuses)},
    }
    print(json.dumps(row))
    print("\n| path | candidates | seconds | candidates/s | sandbox CPU s per candidate |")
    print("|---|---|---|---|---|")
    for key, label in (("probe", "verify_many (probe)"), ("old_verifier", f"old verifier ({args.baseline_rev})"),
                       ("plain_warm", "run_tests, warm sessions"), ("plain_cold", "run_tests, fresh container each")):
        if "seconds" not in row[key]:
            print(f"| {label} | - | - | {row[key].get('error')} | - |")
            continue
        n = row[key].get("candidates", len(files))
        cpu = row[key].get("cpu_per_candidate")
        print(f"| {label} | {n} | {row[key]['seconds']:.1f} | {row[key]['per_second']:.2f} | {cpu if cpu is not None else '-'} |")


if __name__ == "__main__":
    main()
