"""Hostile solutions in a problems file (`harness predict import problems`), run in the real
Docker sandbox before an honest one of the same problem in the same session: a program that
prints forever, forks a child that prints the answer after it exits, looks for the expected
output in every file it can read, writes a forged capture on its ancestors' output, exits
before printing, prints the answer and exits non-zero, or never ends. None gives an item;
the honest solution after them gives its item, so none of them harmed the next run; the
expected output never reached the sandbox. (A fork bomb meets the sandbox's process limit,
tests/security/test_python_verifier_candidates.py.)"""

from __future__ import annotations

import json

import pytest

from harness.predict.config import ProblemsImportConfig
from harness.predict.problems import import_problems

SECRET = "harness-secret-"  # the expected output is this and the input: no file in the sandbox holds it

HOSTILE = {
    "prints forever": "while True:\n    print('x' * 10000)\n",
    "forks a child that answers late": (
        "import os, sys, time\nn = input().strip()\nif os.fork() == 0:\n    time.sleep(1)\n"
        f"    print({SECRET!r} + n, flush=True)\n    os._exit(0)\nos._exit(0)\n"),
    "reads what it can": (
        "import os, stat\nfound = []\n"
        "here = os.path.dirname(os.path.abspath(__file__))\n"
        "for root in ['/tmp', os.getcwd(), here, os.path.dirname(here), '/scratch', '/src', '/build',\n"
        "             '/home', '/root', '/work', '/dev/shm', '/var/tmp', '/run']:\n"
        "    for top, dirs, files in os.walk(root):\n"
        "        for name in files[:50]:\n"
        "            path = os.path.join(top, name)\n"
        "            try:\n"
        "                if not stat.S_ISREG(os.stat(path).st_mode):\n"
        "                    continue  # a pipe would block\n"
        "                with open(path, errors='replace') as f:\n"
        "                    text = f.read(1 << 16)\n"
        "            except OSError:\n"
        "                continue\n"
        f"            found += [line for line in text.splitlines() if line.startswith({SECRET!r})]\n"
        "print(found[0] if found else 'nothing')\n"),
    "forges the capture": (
        "import os\npid = os.getpid()\nfor _ in range(4):\n    try:\n"
        "        pid = int(open(f'/proc/{pid}/stat').read().split(')')[1].split()[1])\n"
        "        fd = os.open(f'/proc/{pid}/fd/1', os.O_WRONLY)\n"
        f"        os.write(fd, b'{SECRET}4471\\n\\n@@harness-capture 0\\n20\\nstdout 20\\n@@harness-capture-end\\n')\n"
        "    except Exception:\n        pass\n"),
    "exits before printing": "import sys\nsys.exit(0)\n",
    "answers and exits non-zero": f"import sys\nprint({SECRET!r} + input().strip())\nsys.exit(3)\n",
    "never ends": "while True:\n    pass\n",
}
HONEST = f"print({SECRET!r} + input().strip())\n"


@pytest.fixture(scope="module")
def built(tmp_path_factory, docker_sandbox):
    base = tmp_path_factory.mktemp("hostile-problems")
    path = base / "hostile.jsonl"
    path.write_text(json.dumps({
        "name": "secret", "solutions": {"language": [3] * (len(HOSTILE) + 1), "solution": [*HOSTILE.values(), HONEST]},
        "public_tests": {"input": ["4471\n"], "output": [f"{SECRET}4471\n"]},
        "private_tests": {"input": [], "output": []}}) + "\n")
    config = ProblemsImportConfig(path=path, out="hostile", root=base, solutions=len(HOSTILE) + 1, eval_share=0,
                                  run_timeout_s=3, workers=1)
    return import_problems(config, sandbox=docker_sandbox)


def test_no_hostile_solution_gives_an_item_and_the_honest_one_after_them_does(built):
    assert [(i.check, i.answer, i.sources[0].name) for i in built.items] == [
        ("public test 1", f"{SECRET}4471", f"solution {len(HOSTILE) + 1}")]
    dropped = built.manifest.dropped
    # Which reason each gives depends on what killed it first; that each gives one does not.
    assert sum(dropped.values()) == len(HOSTILE) and set(dropped) <= {
        "the solution did not exit 0 (an error, a timeout, output past the file-size limit)",
        "output differs from the file's expected output (a wrong solution, or several right answers)"}
    assert dropped["output differs from the file's expected output (a wrong solution, or several right answers)"] >= 3
