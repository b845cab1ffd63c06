"""What one C++ compile costs through the image's compile cache (languages/cpp/assets/
harness-cxx) against the same compile without it: a fixed26 task's test unit (Catch2
precompiled, with the launcher's check of the solution header) and its solution unit,
each compiled --repeats times inside one container of this tree's C++ image, the cache a
tmpfs of its own:

  without    HARNESS_SRC_TREE unset: the launcher does not use the cache;
  miss       the cache emptied before each compile;
  first      the cache emptied, then the test unit and the solution unit once each;
  hit        the same files compiled before;
  other .cpp the solution changed in a way that changes its code (a new function each
             time), the files' names and the header kept: what a later answer to the
             task compiles.

    .venv/bin/python tests/bench/bench_compile_cache.py [--task clock] [--repeats 5]

Prints the seconds of each compile, in order, and ccache's counts at the end."""

from __future__ import annotations

import argparse
import shlex
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from harness.sandbox.image import image_tag  # noqa: E402
from harness.suite import find_suite  # noqa: E402

SCRIPT = r"""
set -u
t=$1 n=$2 file=${1//-/_}
mkdir -p /src/$t && cp /task/CMakeLists.txt /task/${file}_test.cpp /src/$t/
cp /task/.meta/example.cpp /src/$t/$file.cpp && cp /task/.meta/example.h /src/$t/$file.h
cmake -S /src/$t -B /build/$t -DCMAKE_EXPORT_COMPILE_COMMANDS=ON -DEXERCISM_RUN_ALL_TESTS=ON >/dev/null
cd /build/$t
command_for() { grep -o "\"command\": \"[^\"]* -c /src/$t/$1\"" compile_commands.json | sed 's/"command": "//; s/"$//; s/ -g / /'; }
unit=$(command_for ${file}_test.cpp) sol=$(command_for $file.cpp)
export HARNESS_PCH_UNIT=/src/$t/${file}_test.cpp HARNESS_PCH_HEADER=/src/$t/$file.h
time_it() {
    local start=$(date +%s.%N)
    eval "/opt/harness/bin/harness-cxx $2" >/tmp/out.txt 2>&1 || { echo "$1 failed:"; head -5 /tmp/out.txt; exit 1; }
    printf '%s %.3f\n' "$1" "$(awk -v a=$start -v b=$(date +%s.%N) 'BEGIN { print b - a }')"
}
for i in $(seq $n); do time_it "test-unit without" "$unit"; time_it "solution-unit without" "$sol"; done
export HARNESS_SRC_TREE=/src/$t
for i in $(seq $n); do rm -rf /ccache/*; time_it "test-unit miss" "$unit"; rm -rf /ccache/*; time_it "solution-unit miss" "$sol"; done
rm -rf /ccache/*; time_it "test-unit first" "$unit"; time_it "solution-unit first" "$sol"
for i in $(seq $n); do time_it "test-unit hit" "$unit"; time_it "solution-unit hit" "$sol"; done
for i in $(seq $n); do
    printf '\nint harness_bench_%s() { return %s; }\n' "$i" "$i" >> /src/$t/$file.cpp
    time_it "test-unit other-.cpp" "$unit"; time_it "solution-unit other-.cpp" "$sol"
done
ccache --print-stats | grep -E '^(direct_cache_hit|preprocessed_cache_hit|cache_miss)' | tr '\t' ' '
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--task", default="clock")
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    task = find_suite("fixed26").task(args.task)
    tmpfs = [f"--tmpfs={d}:uid=1001,mode=0700" for d in ("/ccache", "/pch", "/src", "/build", "/tmp")]
    command = ["docker", "run", "--rm", "--user", "1001:1001", "-v", f"{task.path}:/task:ro", *tmpfs,
               image_tag("cpp"), "bash", "-c", SCRIPT, "bench", args.task, str(args.repeats)]
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"the bench failed: {done.stdout[-2000:]}{done.stderr[-2000:]} ({shlex.join(command[:8])} ...)")
    seconds: dict[str, list[str]] = {}
    for line in done.stdout.splitlines():
        what, _, value = line.rpartition(" ")
        seconds.setdefault(what, []).append(value)
    for what, values in seconds.items():
        print(f"{what:28} {' '.join(values)}")


if __name__ == "__main__":
    main()
