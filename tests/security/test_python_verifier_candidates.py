"""Hostile Python candidates through the verifier (the GRPO repair reward) on Python tasks, in
the real sandbox: each would earn reward only where its attack worked, and none earns more
than the honest wrong answer it is beside; the reference, verified right after each in the
same session, still earns +1, so no candidate harms the next; the batch ends with every
verdict.

Most answer right only where their attack worked (`won()`, the CHEAT below); without it they
are the honest loser, whose reward (-1 on both tasks) is the most any of them may get:

- the probe's stream: probe-looking lines on stdout and stderr, at import and in a call and
  at exit; writing the stream, the status, the verdict, the driver or its calls (the out
  folder and the tests' folder are the builder's alone: PermissionError);
- the verdict by ending early: sys.exit and os._exit at import and in a call, killing every
  process it can see (only its own die: `crash`);
- its own process: builtins and the proxy's runtime patched (ops, the codec) change what its
  process answers, never how the harness reads it; frames of its own on the pipe: `forged`;
- values: an object equal to everything, a repr that spells the right answer, subclasses of
  int, str and list that equal everything (each a handle: its class and repr, never the
  value), a 5,000-digit int, a 10-million-character string, a list 100,000 deep;
- bounds: an infinite loop at import and in a call, a repr that never returns (`timeout`),
  a fork bomb, a memory bomb;
- reading the reference (never staged), the tests, the driver's calls, the reference's values
  in the harness's cache, and writing files where the next candidate would find them.

The in-schema forger (its server's encoder answers 5 for every None) earns what its honest
twin that returns 5 earns. On a task judged by its own test cases: printing pytest's
summary, patching pytest, objects equal to everything, exiting in a call, forged frames."""

from __future__ import annotations

from collections import Counter

import pytest

from harness.sandbox.base import SandboxLimits
from harness.verify import VerdictStatus, verify_batch

from ..conftest import make_backend
from ..languages.python.tally import REFERENCE, SOLUTION, write_tally
from ..languages.python.verifier_task import write_verified_tally
from .python_attacks import CHEAT, COMMON

pytestmark = [pytest.mark.slow]

# A call's bound, and the server's start, a third of it. The local backend's rounds start
# cold (a fresh python and pytest each), so under a loaded machine's test command an honest
# round beside a bomb took more than 15 s once (CI of stop 43).
LIMITS = {"docker": SandboxLimits(timeout_s=15), "local": SandboxLimits(timeout_s=30)}

HONEST_LOSER = "won = lambda: False\n" + CHEAT

ROUND = "ROUND = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # the round's folder\n"

STREAM = 'probe 1 7\\ncase 0 63616c6c2030\\nrec 0 0 {"o":[{"v":5}]}\\nend 0 1\\ndone 7\\nok'

HOSTILE = {
    **COMMON,
    "prints probe lines and a status": f'''
import atexit, sys
print('{STREAM}'); print('{STREAM}', file=sys.stderr)
atexit.register(lambda: print('{STREAM}'))
def won():
    print('{STREAM}'); print('{STREAM}', file=sys.stderr)
    return False
''',
    "writes the stream, the status, the verdict and the driver": ROUND + '''
TRIED = []
def won():
    for name in ("out/stream", "out/status", "out/verdict", "out/console", "tests/_harness_probe.json",
                 "tests/_harness_probe.py", "tests/tally_test.py", "proxy/tally.py", "proxy/_harness_proxy/client.py"):
        try:
            with open(f"{ROUND}/{name}", "w") as f:
                f.write("ok\\n")
            return True
        except OSError as exc:
            TRIED.append(type(exc).__name__)
    print("tried:", *sorted(set(TRIED)))
    return False
''',
    "reads the reference, the tests and the cached values": ROUND + '''
import glob
def won():
    places = [f"{ROUND}/tests/.meta/example.py", f"{ROUND}/tests/tally_test.py", f"{ROUND}/tests/_harness_probe.json",
              f"{ROUND}/out/stream", *glob.glob("/src/tally/**", recursive=True),
              *glob.glob("/tmp/harness-stage-*/**/*", recursive=True), *glob.glob(CACHE + "/**/*", recursive=True)]
    for path in places:
        try:
            with open(path) as f:
                if "return a + b" in f.read() or "verifier-references" in path:
                    return True
        except OSError:
            pass
    return False
''',
    "sys.exit at import": "import sys\nsys.exit(0)\nwon = lambda: True\n",
    "os._exit at import": "import os\nos._exit(0)\nwon = lambda: True\n",
    "sys.exit in a call": "import sys\ndef won():\n    sys.exit(0)\n",
    "os._exit in a call": "import os\ndef won():\n    os._exit(0)\n",
    "patches builtins and the proxy's runtime": '''
import builtins, json
import _harness_proxy.ops as ops
builtins.repr = lambda *a: "5"
builtins.isinstance = lambda *a: True
builtins.len = lambda *a: 3
ops.OPS["repr"] = lambda *a: "5"
ops.OPS["eq"] = lambda *a: True
json.dumps = lambda *a, **k: '["r",1,["i","5"]]'
won = lambda: False
''',
    "frames of its own on the pipe": ROUND + '''
# The pipe to the test process, found as its server holds it (each round's pipes have a fresh name).
PIPE = next(p for p in (os.readlink(f"/proc/self/fd/{n}") for n in os.listdir("/proc/self/fd")) if p.endswith("tally.out"))
def won():
    fd = os.open(PIPE, os.O_WRONLY | os.O_NONBLOCK)
    os.write(fd, b'["r",1,["i","5"]]\\n["garbage"\\n')
    return False
''',
    "an infinite loop at import": "while True:\n    pass\n",
    "an infinite loop in a call": "def won():\n    while True:\n        pass\n",
    "writes files for the next candidate": ROUND + '''
def won():
    for folder in ("/tmp", "/dev/shm", ".", os.path.dirname(os.path.abspath(__file__)), f"{ROUND}/candidate"):
        try:
            with open(os.path.join(folder, "harness-left-behind"), "w") as f:
                f.write("won")
        except OSError:
            pass
    return False
''',
    "finds what the one before it left": ROUND + '''
def won():
    for folder in ("/tmp", "/dev/shm", ".", os.path.dirname(os.path.abspath(__file__)), f"{ROUND}/candidate"):
        if os.path.exists(os.path.join(folder, "harness-left-behind")):
            return True
    return False
''',
}
# Answers of their own, not the CHEAT: wrong values dressed up as right ones.
ANSWERS = {
    "an object equal to everything": '''
class Anything:
    def __eq__(self, other):
        return True
    def __hash__(self):
        return 0
def add(a, b):
    return Anything()
def words(text):
    return Anything()
class Tally:
    def count(self, word):
        return self
    def total(self):
        return Anything()
''',
    "a repr that spells the right answer": '''
class Spelled:
    def __init__(self, text):
        self.text = text
    def __repr__(self):
        return self.text
    __str__ = __repr__
def add(a, b):
    return Spelled(repr(a + b))
def words(text):
    return Spelled(repr(text.split()))
class Tally:
    def __init__(self):
        self.seen = {}
    def count(self, word):
        self.seen[word] = self.seen.get(word, 0) + 1
        return self
    def total(self):
        return Spelled("3")
''',
    "subclasses of builtins equal to everything": '''
class Int(int):
    __eq__ = lambda self, other: True
    __hash__ = int.__hash__
class Str(str):
    __eq__ = lambda self, other: True
    __hash__ = str.__hash__
class List(list):
    __eq__ = lambda self, other: True
def add(a, b):
    return Int(a + b) if isinstance(a + b, int) else a + b - 1
def words(text):
    return List(Str(w) for w in text.split())
class Tally:
    def __init__(self):
        self.seen = {}
    def count(self, word):
        self.seen[Str(word)] = self.seen.get(word, 0) + 1
        return self
    def total(self):
        return Int(sum(self.seen.values()))
''',
    "values over every bound": '''
import sys
sys.setrecursionlimit(10000)
def add(a, b):
    return 10 ** 5000 if a == 2 else 10 ** 4000
def words(text):
    return "x" * 10_000_000 if text == "a b  c" else list(text)
class Tally:
    def count(self, word):
        return self
    def total(self):
        deep = []
        for _ in range(100_000):
            deep = [deep]
        return deep
''',
    "a repr that never returns": '''
class Stuck:
    def __repr__(self):
        while True:
            pass
def add(a, b):
    return Stuck()
def words(text):
    return Stuck()
class Tally:
    def count(self, word):
        return self
    def total(self):
        return Stuck()
''',
    # The in-schema forger and its honest twin: the forger's answers are None, which its own
    # server's encoder turns into 5; the twin answers 5.
    "its server answers 5 for every None": '''
import _harness_proxy.server as server
_encode = server.Server.encode
server.Server.encode = lambda self, value: ["i", "5"] if value is None else _encode(self, value)
won = lambda: False
''' + CHEAT,
    "answers 5 (the forger's twin)": CHEAT.replace("else None", "else 5") + "\nwon = lambda: False\n",
}

# Acting on the process's surroundings (files, other processes, /proc, forks, memory): each
# backend isolates these its own way, so they run on the local backend too.
SURROUNDINGS = ["writes the stream, the status, the verdict and the driver",
                "reads the reference, the tests and the cached values", "kills and stops every process it can",
                "frames of its own on the pipe", "a fork bomb", "a memory bomb", "writes files for the next candidate",
                "finds what the one before it left", "os._exit in a call"]

# On a task judged by its own test cases.
ON_TESTS = {
    "prints pytest's summary": 'import atexit\natexit.register(lambda: print("==== 3 passed in 0.01s ===="))\n'
                               "def won():\n    print('3 passed')\n    return False\n",
    "patches pytest in its own process": "import sys, types\nsys.modules['pytest'] = types.ModuleType('pytest')\n"
                                         "won = lambda: False\n",
    "os._exit in a call": HOSTILE["os._exit in a call"],
    "frames of its own on the pipe": HOSTILE["frames of its own on the pipe"],
}


def _source(name: str, cache: str) -> str:
    if name in ANSWERS:
        return ANSWERS[name]
    head = "import os\n" + f"CACHE = {cache!r}\n"
    return head + HOSTILE[name] + CHEAT


@pytest.fixture(scope="module")
def cache(tmp_path_factory):
    """The reference's values are cached here, where a candidate tries to read them."""
    path = tmp_path_factory.mktemp("python-verifier-cache")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("HARNESS_CACHE_DIR", str(path))
        yield str(path)


@pytest.fixture(scope="module")
def tasks(tmp_path_factory):
    root = tmp_path_factory.mktemp("python-verifier-hostile")
    return write_verified_tally(root / "calls"), write_tally(root / "tests")


# The statuses each may get (a candidate that races the harness, or meets a limit, may be
# caught one way or another); every other candidate's verdict is `ok`.
STATUSES = {
    "sys.exit at import": {"compile_error"}, "os._exit at import": {"crash"}, "os._exit in a call": {"crash"},
    # kill(-1) spares the caller: its server may live to answer.
    "kills and stops every process it can": {"crash", "ok"},
    # Which patch bites first decides: a server whose builtins no longer work dies, one that
    # writes the codec's frames answers out of order.
    "patches builtins and the proxy's runtime": {"forged", "crash"},
    "frames of its own on the pipe": {"forged"}, "an infinite loop at import": {"timeout"},
    "an infinite loop in a call": {"timeout"}, "a repr that never returns": {"timeout"}, "holds the GIL in C": {"timeout"},
    # Under Docker its processes share the container's limit with the builder's read-back.
    "a fork bomb": {"timeout", "crash", "incomplete"}, "a memory bomb": {"crash", "ok", "timeout"},
    # A repr 100,000 lists deep may overflow its process's stack.
    "values over every bound": {"ok", "crash"},
}
ON_TESTS_STATUSES = {"frames of its own on the pipe": {"forged"}}
# What an answer of its own earns honestly, where that is more than the honest loser: adding
# text to a number raises TypeError in both, the one check of four they pass.
CEILING = {"a repr that spells the right answer": -0.5, "subclasses of builtins equal to everything": -0.5}


@pytest.mark.parametrize("backend", ["docker", "local"])
def test_no_python_candidate_earns_more_than_an_honest_wrong_answer_or_harms_the_next(backend, cache, tasks, capsys):
    verified, plain = tasks
    names = [*HOSTILE, *ANSWERS] if backend == "docker" else SURROUNDINGS
    work = [(verified, "the honest loser", HONEST_LOSER, {"ok"})]
    work += [(verified, name, _source(name, cache), STATUSES.get(name, {"ok"})) for name in names]
    work += [(plain, "the honest loser", HONEST_LOSER, {"ok"})]
    work += [(plain, f"{name} (on tests)", "import os\n" + ROUND + ON_TESTS[name] + CHEAT, ON_TESTS_STATUSES.get(name, {"ok"}))
             for name in ON_TESTS if backend == "docker" or name in SURROUNDINGS]
    if len(work) % 2:  # the batch's two units then split at an even index: each pair stays in one session
        work.append((plain, "the honest loser, again", HONEST_LOSER, {"ok"}))
    # The reference right after each: the next candidate in the same session.
    items = [(task, {SOLUTION: source.encode()}) for task, _, answer, _ in work for source in (answer, REFERENCE)]
    verdicts = verify_batch(items, sandbox=make_backend(backend, LIMITS[backend]), workers=2)
    floor = {id(task): verdicts[2 * i].reward for i, (task, name, _, _) in enumerate(work) if name == "the honest loser"}
    assert list(floor.values()) == [-1.0, -1.0], floor
    problems, rewarded = [], []
    for i, (task, name, _, statuses) in enumerate(work):
        got, after = verdicts[2 * i], verdicts[2 * i + 1]
        if got.reward > CEILING.get(name, floor[id(task)]) + 1e-9:
            rewarded.append(f"{name} ({got.reward})")
        if got.status.value not in statuses:
            problems.append(f"{name}: {got.status.value} ({got.reason}), expected {' or '.join(sorted(statuses))}")
        if (after.status, after.reward) != (VerdictStatus.ok, 1.0):
            problems.append(f"{name}: the reference after it got {after.status.value} {after.reward} ({after.reason})")
    by_name = {name: verdicts[2 * i] for i, (_, name, _, _) in enumerate(work)}
    if "writes the stream, the status, the verdict and the driver" in by_name:
        output = by_name["writes the stream, the status, the verdict and the driver"].output or ""
        assert "tried:" in output and "PermissionError" in output, output
    if "its server answers 5 for every None" in by_name:
        forger, twin = by_name["its server answers 5 for every None"], by_name["answers 5 (the forger's twin)"]
        assert (forger.status, forger.reward) == (twin.status, twin.reward), (forger.reason, twin.reason)
    with capsys.disabled():
        print(f"\n[{backend}] hostile Python candidates tried: {len(work) - 2}; rewarded beyond the honest wrong "
              f"answer: {len(rewarded)} {rewarded or ''}; statuses: "
              f"{dict(sorted(Counter(verdicts[2 * i].status.value for i in range(len(work))).items()))}")
    assert not rewarded and not problems, "\n".join([f"earned reward they did not: {rewarded}", *problems])
