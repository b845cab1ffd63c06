"""Candidates verified per second on phone-number, beside plain build-and-test of the same
candidates, all measured in the same run on the same machine:

  verify        harness.verify.verify_many: one warm session per worker for the whole batch,
                candidates grouped by header so the test unit is compiled once per header
                and worker, every check on the built binary, the token run;
  plain cold    harness test's path (run_tests) with a fresh container per candidate, as a
                one-off `harness test` of each candidate would do;
  plain warm    run_tests in one warm session per worker, in input order (no verifier
                checks, no grouping): what the verifier costs over testing alone.

The 64 candidates: the reference and the four faulty controls in textual variants (a
comment naming the variant, so every one really recompiles its source), a few with an
edited header (so some test units are compiled again), and sources that do not compile.

    .venv/bin/python tests/bench/bench_verify.py [--workers 2] [--cold-sample 64]
"""

from __future__ import annotations

import argparse
import json
import os
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor

from harness.paths import bundled_dir
from harness.sandbox.docker import DockerSandbox
from harness.task import load_task
from harness.testrun import run_tests
from harness.verify import verify_many

TASK = load_task(bundled_dir("suites") / "fixed26" / "phone-number")


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
    ap.add_argument("--cold-sample", type=int, default=64, help="how many candidates the cold baseline runs")
    args = ap.parse_args()
    sandbox = DockerSandbox()
    kinds, files = zip(*candidates())
    headers = len({f["phone_number.h"] for f in files})

    # The task's plan (its verifier.toml) is read once per process; do it outside the clock.
    verify_many(TASK, [TASK.reference_files()], sandbox=sandbox, workers=1)

    t0 = time.perf_counter()
    verdicts = verify_many(TASK, list(files), sandbox=sandbox, workers=args.workers)
    verify_s = time.perf_counter() - t0
    by_kind: dict[str, Counter] = {}
    for kind, v in zip(kinds, verdicts):
        by_kind.setdefault(kind, Counter())[f"{v.status.value} {v.reward:+.2f}"] += 1
    assert by_kind["correct"] == Counter({"ok +1.00": 24}), by_kind
    assert by_kind["non-compiling"] == Counter({"compile_error -1.00": 12}), by_kind

    warm_s, warm_statuses = plain(sandbox, list(files), args.workers, warm=True)
    sample = list(files)[: args.cold_sample]
    cold_s, cold_statuses = plain(sandbox, sample, args.workers, warm=False)

    row = {
        "task": TASK.slug, "candidates": len(files), "distinct_headers": headers, "workers": args.workers,
        "cpus": os.cpu_count(), "load_before": round(os.getloadavg()[0], 2),
        "verify": {"seconds": round(verify_s, 2), "per_second": rate(len(files), verify_s),
                   "verdicts": {k: dict(c) for k, c in by_kind.items()}},
        "plain_warm": {"seconds": round(warm_s, 2), "per_second": rate(len(files), warm_s),
                       "statuses": dict(warm_statuses)},
        "plain_cold": {"seconds": round(cold_s, 2), "per_second": rate(len(sample), cold_s), "candidates": len(sample),
                       "statuses": dict(cold_statuses)},
    }
    print(json.dumps(row))
    print("\n| path | candidates | seconds | candidates/s |")
    print("|---|---|---|---|")
    for key, label in (("verify", "verify_many"), ("plain_warm", "run_tests, warm sessions"),
                       ("plain_cold", "run_tests, fresh container each")):
        n = row[key].get("candidates", len(files))
        print(f"| {label} | {n} | {row[key]['seconds']:.1f} | {row[key]['per_second']:.2f} |")


if __name__ == "__main__":
    main()
