"""Aider's own benchmark and `harness run --agent aider-polyglot`, side by side, over the
upstream polyglot exercises, against one scripted OpenAI-compatible server that logs
every request either of them sends; the C++, Python, Go, Rust or JavaScript exercises (the
language is the exercises folder's: polyglot-benchmark/<language>/exercises/practice).

    .venv/bin/python tests/bench/bench_aider_polyglot.py --aider-checkout /path/to/aider \\
        --exercises /path/to/polyglot-benchmark/{cpp,python,go,rust,javascript}/exercises/practice \\
        --aider-python /path/to/venv/bin/python [--mount /npm-install=DIR] \\
        [--tasks a,b] [--out DIR] [--against EARLIER_OUT]

The server answers each exercise's first request with the reference solution plus a line
that does not compile (C++, Go, Rust: an undefined name, which Aider's Go and Rust linter,
a syntax check, does not flag) or names an undefined name at import (Python: flake8's F821,
which Aider's Python linter reports, so the lint follow-ups come, then a test run that
fails on import; JavaScript: a module-level constant, which Aider's JavaScript lint, a
syntax check, does not flag, and whose ReferenceError fails the spec file's suite),
Aider's lint follow-ups ("# Fix any errors below") with its previous answer again,
every later request with the reference solution, and chat-history summary requests with
a sentence. Both harnesses get the same answers to the same
requests, so their logs can be compared request by request. With `--first-answer stub` the
first answer is the exercise's stub as shipped instead, so that the round-2 message is what
failing tests print where the stub compiles (the check that it carries the broken line's
diagnostics then fails by design).

Aider's side runs Aider's unmodified benchmark/benchmark.py from a copy of the checkout
(made a git repository, which benchmark.py asks for), with the interpreter given by
--aider-python: a virtual environment of your own with aider-chat 0.86.2 and the
benchmark's requirements (lox, typer, pandas, matplotlib, imgcat), never the project's.
benchmark.py runs Python tests with the `pytest` first on its PATH in the exercise's
folder (here /usr/bin's: Debian's python3-pytest, as in the sandbox image), and C++ tests
with the absolute path /aider/benchmark/cpp-test.sh (in Aider's container the checkout is
mounted at /aider), so it runs under bubblewrap with the copy mounted at /aider and the
host's toolchain (cmake, make, g++); Go tests with `go test ./...` and the `go` of GO_BIN
(install golang-1.21-go from bookworm-backports), offline (GOPROXY=off, GOFLAGS=-mod=mod,
as the sandbox image has them), with a build cache of the run's own that starts empty, as in
a fresh container of Aider's image (the host's ~/.cache/go-build keeps what earlier runs
built); Rust tests with `cargo test -- --include-ignored` and
Debian's cargo (install rustc-web, cargo-web and librust-{anyhow,rand,time}-dev, the
image's toolchain and crates), offline with a CARGO_HOME whose config, as the image's,
puts Debian's crate registry in place of crates.io; JavaScript tests with the absolute path
/aider/benchmark/npm-test.sh, which links the exercise's node_modules and package-lock.json
to /npm-install's (in Aider's image the folder where its Dockerfile ran `npm install`) and
runs `npm run test`: give with `--mount /npm-install=DIR` a folder where npm installed the
sandbox image's Jest and Babel packages (languages/javascript/assets/image.dockerfile), bound
at /npm-install under the same bubblewrap, with the host's node and npm and a TMPDIR of the
run's own, where Jest's cache starts empty as in a fresh container (the host's /tmp/jest_*
keeps earlier runs' transforms). Then its own summary
code (`benchmark.py --stats`) prints pass_num_1 and pass_num_2.

The harness side imports the exercises with `harness suite import`, runs them with
`--agent aider-polyglot` (one trial, one worker, the Docker sandbox) and reports with
`--accounting aider`.

What it checks and prints, per exercise: the system prompt and the first user message
byte for byte (the file list in the first message is compared as a set: benchmark.py takes
it from a Python set, whose order changes from run to run), the sequence of model calls
(task, lint follow-ups, test feedback, summaries), that the round-2 message carries the
compiler's diagnostics and Aider's failure text, a diff of the two round-2 messages, and
the requests' other parameters (model, temperature);
then pass_num_1 and pass_num_2 of both. Every request is written to --out."""

from __future__ import annotations

import argparse
import difflib
import itertools
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from harness.agents.aider.checkout import read_prompts  # noqa: E402
from harness.agents.editformat import render_whole as whole_answer  # noqa: E402
from harness.gold import ChatServer  # noqa: E402
from harness.task import load_task  # noqa: E402
from tests.scripted_model import is_preflight  # noqa: E402

MODEL = "openai/scripted"
# The Go that Aider's side runs `go test ./...` with: Debian's golang-1.21-go from
# bookworm-backports, the sandbox image's Go (Aider's own image has 1.21.5).
GO_BIN = "/usr/lib/go-1.21/bin"
# The sandbox image's cargo config (languages/rust/assets/image.dockerfile) but for its
# profile: the crates the exercises name come from Debian's packaged registry, and cargo
# never asks the network; builds keep cargo's debug info, as in Aider's image.
CARGO_CONFIG = ('[source.crates-io]\nreplace-with = "debian"\n\n[source.debian]\n'
                'directory = "/usr/share/cargo/registry"\n\n[net]\noffline = true\n')
SUMMARY_MARK = "summarize this partial conversation"
LINT_MARK = "# Fix any errors below"


class Language:
    """What the scripted answers and the checks need of a language: the line added to the
    first answer, the file it goes in (the first of the sorted solution files the key puts
    first), and what the round-2 message must then carry (the diagnostic's words). `env`:
    what Aider's side runs its tests with (see the docstring); `files`, written under the
    work folder before Aider's side runs, which `{work}` in `env` names; `mounts`, absolute
    paths Aider's test script reads, each bound to the folder given with --mount."""

    def __init__(self, name: str, broken_line: str, first: str, diagnostics: tuple[str, ...],
                 env: dict[str, str] | None = None, files: dict[str, str] | None = None,
                 mounts: tuple[str, ...] = ()):
        self.name, self.broken_line, self.first, self.diagnostics = name, broken_line, first, diagnostics
        self.env, self.files, self.mounts = env or {}, files or {}, mounts

    def aider_env(self, work: Path) -> dict[str, str]:
        for name, text in self.files.items():
            (work / name).parent.mkdir(parents=True, exist_ok=True)
            (work / name).write_text(text)
        return {key: value.replace("{work}", str(work)) for key, value in self.env.items()}


LANGUAGES = {
    "cpp": Language("cpp", "\nint harness_first_answer_does_not_compile() { return undeclared_name; }\n", ".cpp",
                    ("undeclared_name", "error:")),
    "python": Language("python", "\nharness_first_answer_fails = undeclared_name\n", ".py",
                       ("undeclared_name", "NameError"), {"PATH": "/usr/bin:/bin:" + os.environ.get("PATH", "")}),
    # Build caches start empty, as in a fresh container of Aider's image: the host's own (Go's
    # in ~/.cache, Jest's under /tmp) keep what earlier runs built and transformed.
    "go": Language("go", "\nvar harnessFirstAnswerDoesNotCompile = undeclaredName\n", ".go",
                   ("undeclaredName", "undefined:"),
                   {"PATH": f"{GO_BIN}:" + os.environ.get("PATH", ""), "GOFLAGS": "-mod=mod", "GOPROXY": "off",
                    "GOTOOLCHAIN": "local", "CGO_ENABLED": "0", "GOCACHE": "{work}/go-cache"}),
    # /usr/bin first: Debian's cargo, not a rustup one on the PATH.
    # RUST_BACKTRACE off, as in Aider's image and the sandbox, whatever this host sets.
    "rust": Language("rust", "\npub fn harness_first_answer_does_not_compile() -> i32 {\n    undeclared_name\n}\n", ".rs",
                     ("undeclared_name", "error[E0425]"),
                     {"PATH": "/usr/bin:/bin:" + os.environ.get("PATH", ""), "CARGO_HOME": "{work}/cargo-home",
                      "RUST_BACKTRACE": "0"},
                     {"cargo-home/config.toml": CARGO_CONFIG}),
    "javascript": Language("javascript", "\nconst harnessFirstAnswerFails = undeclaredName;\n", ".js",
                           ("undeclaredName", "ReferenceError"), {"TMPDIR": "{work}/tmp"}, {"tmp/.empty": ""},
                           mounts=("/npm-install",)),
}


# --- the scripted server ---------------------------------------------------------------


def _text(body: dict) -> str:
    return "\n".join(str(m.get("content") or "") for m in body.get("messages") or [])


def _last_user(body: dict) -> str:
    return next((str(m.get("content") or "") for m in reversed(body.get("messages") or []) if m.get("role") == "user"), "")


class ExerciseIndex:
    """Which exercise a request to Aider's model is about, from the solution files it names
    (as Aider shows them: neither benchmark.py, by its ignore_files, nor the harness gives
    it a build file, Task.is_build_file's)."""

    def __init__(self, tasks: dict):
        self.names = {slug: sorted(Path(f).name for f in t.solution_files if not t.is_build_file(f))
                      for slug, t in tasks.items()}
        # What tells exercises apart whose files have the same names (every Rust one's are
        # lib.rs and Cargo.toml): their stubs' and references' texts, one of which every
        # request about them carries (the chat files, the answers in a summarised chat).
        self.texts = {slug: [text for text in {*(v.decode() for v in t.stub_files().values()),
                                               *(v.decode() for v in t.reference_files().values())} if len(text) > 40]
                      for slug, t in tasks.items()}

    def of(self, text: str) -> str | None:
        named = {slug: [n for n in names if re.search(rf"(?<![\w.]){re.escape(n)}(?![\w])", text)]
                 for slug, names in self.names.items()}
        # Every file of the exercise named, else (a summary of a late part of the chat) some;
        # the most specific match first (an exercise whose file names contain another's).
        found = [s for s, hits in named.items() if len(hits) == len(self.names[s])] or [s for s, hits in named.items() if hits]
        return max(found, key=lambda s: (sum(len(n) for n in named[s]), sum(len(t) for t in self.texts[s] if t in text)),
                   default=None)


class ScriptedServer:
    """Answers as described above, per harness (the route) and exercise, and logs every
    request with what it was and what it got."""

    def __init__(self, tasks: dict, language: Language, first: str = "broken"):
        self.tasks = tasks  # slug -> Task
        self.language = language
        self.first = first  # the first answer: the reference made broken, or the stub as shipped
        self.exercises = ExerciseIndex(tasks)
        self.log: dict[str, list[dict]] = defaultdict(list)
        self.turns: dict[tuple[str, str], int] = defaultdict(int)
        self.last: dict[tuple[str, str], str] = {}
        self.lock = threading.Lock()
        self.server = ChatServer(self._respond)

    def _respond(self, route: str, body: dict) -> str:
        if is_preflight(body):  # the harness's one-token check before its run: no exercise's request
            return "OK"
        slug = self.exercises.of(_text(body))
        first_system = next((str(m.get("content")) for m in body.get("messages") or [] if m.get("role") == "system"), "")
        with self.lock:
            key = (route, slug)
            if SUMMARY_MARK in first_system:
                kind, answer = "summary", "We worked on the exercise; the tests were run."
            elif _last_user(body).lstrip().startswith(LINT_MARK):
                kind, answer = "lint", self.last.get(key, "")
            else:
                kind = "task" if self.turns[key] == 0 else "feedback"
                task = self.tasks[slug]
                files = task.stub_files() if self.turns[key] == 0 and self.first == "stub" else task.reference_files()
                files = {name: data.decode() for name, data in files.items() if not task.is_build_file(name)}
                if self.turns[key] == 0 and self.first != "stub":
                    last = sorted(files, key=lambda f: (not f.endswith(self.language.first), f))[0]
                    files[last] = files[last] + self.language.broken_line
                answer = whole_answer(files)
                self.turns[key] += 1
                self.last[key] = answer
            self.log[route].append({"task": slug, "kind": kind, "body": body, "answer": answer, "at": time.time()})
        return answer

    def __enter__(self):
        self.server.start()
        return self

    def __exit__(self, *exc):
        self.server.stop()


# --- Aider's side ----------------------------------------------------------------------


def parse_mounts(values: list[str]) -> dict[str, Path]:
    """`--mount PATH=DIR` values: the folder bound at each absolute path of Aider's side."""
    return {path: Path(folder).resolve() for path, _, folder in (m.partition("=") for m in values)}


def _bwrap_with_aider_at(checkout: Path, mounts: dict[str, Path]) -> list[str]:
    """The host's file system with `checkout` at /aider and each of `mounts` (a path of /'s
    own: /npm-install) bound to its folder, without touching the host's /."""
    args = ["bwrap", "--die-with-parent", "--tmpfs", "/"]
    for entry in sorted(os.listdir("/")):
        path = f"/{entry}"
        if entry in ("proc", "dev", "aider") or path in mounts:
            continue
        if os.path.islink(path):
            args += ["--symlink", os.readlink(path), path]
        elif os.path.isdir(path):
            args += ["--bind", path, path]
    args += [a for path, folder in sorted(mounts.items()) for a in ("--bind", str(folder), path)]
    return args + ["--proc", "/proc", "--dev-bind", "/dev", "/dev", "--bind", str(checkout), "/aider"]


def _quiet_env(**extra: str) -> dict[str, str]:
    env = dict(os.environ)
    env.update(LITELLM_LOCAL_MODEL_COST_MAP="True", AIDER_ANALYTICS="false", AIDER_CHECK_UPDATE="false",
               TERM="dumb", NO_COLOR="1", **extra)
    return env


def _aider_command(args, work: Path) -> tuple[list[str], list[str]]:
    return _bwrap_with_aider_at(work / "aider", args.mounts) + ["--chdir", "/aider"], [str(args.aider_python), "benchmark/benchmark.py"]


def aider_stats(args, work: Path, env: dict, run_dir: Path) -> str:
    """What Aider's own summary code prints for a results folder."""
    wrap, bench = _aider_command(args, work)
    stats = subprocess.run(wrap + bench + ["--stats", str(run_dir)], env=env, capture_output=True, text=True, timeout=600)
    return stats.stdout + stats.stderr


def run_aider(args, work: Path, api_base: str, slugs: list[str], name: str = "side-by-side") -> tuple[Path, str, dict]:
    checkout = work / "aider"
    if not checkout.is_dir():
        shutil.copytree(args.aider_checkout, checkout, ignore=shutil.ignore_patterns(".git", "tmp.benchmarks"))
        git = ["git", "-C", str(checkout), "-c", "user.name=bench", "-c", "user.email=bench@localhost"]
        subprocess.run(git[:3] + ["init", "-q"], check=True)
        subprocess.run(git + ["add", "-A"], check=True)
        subprocess.run(git + ["commit", "-q", "-m", "checkout under test"], check=True)
    benchmarks = work / "benchmarks"
    practice = benchmarks / "polyglot-benchmark" / args.language / "exercises" / "practice"
    if not practice.is_dir():
        practice.mkdir(parents=True)
        for slug in slugs:
            shutil.copytree(Path(args.exercises) / slug, practice / slug)
    env = _quiet_env(AIDER_DOCKER="1", AIDER_BENCHMARK_DIR=str(benchmarks), OPENAI_API_BASE=api_base,
                     OPENAI_API_KEY="scripted", **LANGUAGES[args.language].aider_env(work))
    wrap, bench = _aider_command(args, work)
    t0 = time.monotonic()
    with open(work / f"aider-benchmark-{name}.log", "w") as log:
        subprocess.run(wrap + bench + [name, "--model", MODEL, "--edit-format", "whole", "--threads", "1",
                                       "--tries", "2", "--languages", args.language],
                       env=env, stdout=log, stderr=subprocess.STDOUT, check=True, timeout=args.timeout)
    print(f"Aider's benchmark ({name}): {time.monotonic() - t0:.0f} s", flush=True)
    (run_dir,) = [d for d in benchmarks.iterdir() if d.name.endswith(f"--{name}")]
    return run_dir, aider_stats(args, work, env, run_dir), env


# Results files as a real folder can hold them, one per exercise in turn: a test case that
# raised, an empty file, one cut off mid-write, malformed responses, a pass on the 2nd try.
_MUTATIONS = [
    lambda d: {"exception": "Traceback (most recent call last):\n  ...\nRuntimeError: scripted"},
    lambda d: {},
    lambda d: None,
    lambda d: {**d, "num_malformed_responses": 2},
    lambda d: {**d, "tests_outcomes": [False, True]},
    lambda d: {**d, "tests_outcomes": [True]},
    lambda d: {**d, "tests_outcomes": [False, False], "test_timeouts": 1},
]


def check_import(args, work: Path, env: dict, run_dir: Path) -> list[str]:
    """A copy of Aider's results folder made tricky (see _MUTATIONS), read by Aider's own
    summary code and by `harness report --aider DIR --accounting aider`: the printed rates
    must agree digit for digit."""
    tricky = run_dir.with_name(run_dir.name.replace("--side-by-side", "--tricky"))
    shutil.copytree(run_dir, tricky, symlinks=True)  # JavaScript's links to /npm-install, there only under bwrap
    for path, mutate in zip(sorted(tricky.glob("*/exercises/practice/*/.aider.results.json")), _MUTATIONS):
        data = mutate(json.loads(path.read_text()))
        path.write_text('{"testcase": "cut off' if data is None else json.dumps(data))
    theirs = aider_stats(args, work, env, tricky)
    out = work / "tricky-report.json"
    subprocess.run([str(ROOT / ".venv" / "bin" / "harness"), "report", "--aider", str(tricky), "--accounting", "aider",
                    "--format", "json", "--out", str(out), "--resamples", "1000"], check=True, capture_output=True)
    ours = json.loads(out.read_text())["data"]["aider_summary"][0]
    lines = []
    for key in ("test_cases", "pass_rate_1", "pass_rate_2", "percent_cases_well_formed", "pass_num_1", "pass_num_2",
                "num_malformed_responses", "test_timeouts"):
        lines.append(f"  {key}: Aider's summary {_stat(theirs, key)}, harness {ours[key]}"
                     + ("" if _stat(theirs, key) in (str(ours[key]), None) else "  <- DIFFERS"))
    return lines


# --- the harness's side ----------------------------------------------------------------


def run_harness(args, work: Path, api_base: str, slugs: list[str]) -> dict:
    harness = [str(ROOT / ".venv" / "bin" / "harness")]
    env = dict(os.environ, HARNESS_STATE_DIR=str(work / "state"))
    suite = f"polyglot-{args.language}"
    subprocess.run(harness + ["suite", "import", str(args.exercises), "--name", suite], env=env, check=True,
                   capture_output=True)
    t0 = time.monotonic()
    run = subprocess.run(harness + ["run", "--suite", suite, "--tasks", ",".join(slugs), "--agent", "aider-polyglot",
                                    "--aider-checkout", str(args.aider_checkout), "--model", MODEL, "--api-base", api_base,
                                    "--trials", "1", "--workers", "1", "--runs-dir", str(work / "runs"),
                                    "--run-id", "side-by-side"],
                         env=env, capture_output=True, text=True, timeout=args.timeout)
    print(f"harness run: {time.monotonic() - t0:.0f} s (exit {run.returncode})", flush=True)
    if run.returncode not in (0, 1):
        raise SystemExit(f"harness run failed: {run.stderr[-2000:]}")
    out = work / "report.json"
    subprocess.run(harness + ["report", str(work / "runs" / "side-by-side"), "--accounting", "aider", "--format", "json",
                              "--out", str(out), "--resamples", "1000"], env=env, check=True, capture_output=True)
    return json.loads(out.read_text())


# --- comparing -------------------------------------------------------------------------


def _set_file_list(text: str, names: list[str]) -> str:
    """The message with any order of the file names written in sorted order."""
    for perm in itertools.permutations(names):
        text = text.replace(" ".join(perm), " ".join(sorted(names)))
    return text


def _files_message_sorted(text: str) -> str:
    """The chat-files message with its file listings in sorted order (Aider keeps the
    files in a set)."""
    head, sep, rest = text.partition("\n\n")
    blocks = re.split(r"\n(?=[^\n`]+\n```)", rest)
    return head + sep + "\n".join(sorted(blocks))


_MAKE_CLOSING = re.compile(r"^g?make(\[\d+\])?: \*\*\*.*\n?", re.MULTILINE)
# The Python Aider runs in, which its Python linter's follow-up names: each side's own venv.
_LINTER_PYTHON = re.compile(r"^## Running: \S+ -m flake8 ", re.MULTILINE)


# What differs from run to run of the same program: a Go panic's goroutine numbers and
# addresses, and the package line's timing, which Aider's cleanup leaves and the harness drops;
# Jest's time for the run and for each slow test, which Aider's cleanup and the harness leave.
_RUN_NUMBERS = [(re.compile(r"0x[0-9a-f]+"), "0x?"), (re.compile(r"goroutine \d+"), "goroutine N"),
                (re.compile(r"^(FAIL|ok  )\t(\S+)\t[0-9.]+s$", re.MULTILINE), r"\1\t\2"),
                (re.compile(r"^Time: +[0-9.]+ m?s(, estimated [0-9.]+ m?s)?$", re.MULTILINE), "Time: ?"),
                (re.compile(r" \(\d+ ms\)$", re.MULTILINE), "")]
# What differs between a cargo of several jobs and a fresh target folder (Aider's side) and
# the sandbox's, of one CPU, with the image's crates built: the other jobs' lines after a
# failed build (the lib's tests failing beside the lib, in either order), and the crates'
# Compiling lines (every Compiling line but the exercise's, the one whose path is named).
_CARGO_JOBS = [(re.compile(r"^warning: build failed, waiting for other jobs to finish\.\.\.\n", re.MULTILINE), ""),
               (re.compile(r"^error: could not compile `[\w-]+` \(lib test\) due to .*\n", re.MULTILINE), ""),
               (re.compile(r"^ +Compiling [\w-]+ v\S+\n", re.MULTILINE), ""),
               # a test binary's hash, which the path and the toolchain it was built with make
               (re.compile(r"(target/debug/deps/\w+)-[0-9a-f]{16}\b"), r"\1-?")]
AS_ALIKE = ("make's closing lines, the linter's interpreter, Go's or Jest's run-dependent numbers or cargo's jobs, crates, "
            "test binaries' hashes and libtest's order")
_LIBTEST_RESULTS = re.compile(r"(?:^test \S+ \.\.\. .*\n)+", re.MULTILINE)
_BACKTRACE_NOTE = re.compile(r"^note: run with `RUST_BACKTRACE=1` .*\n", re.MULTILINE)
_LIBTEST_FAILURES = re.compile(r"^failures:\n\n(---- .*?)\nfailures:\n", re.MULTILINE | re.DOTALL)


def _libtest_sorted(text: str) -> str:
    """libtest's lines in name order: its threads finish tests in an order of their own
    (the host's several, the sandbox's one), and the first to panic gets the backtrace note."""
    text = _LIBTEST_RESULTS.sub(lambda m: "".join(sorted(m.group(0).splitlines(keepends=True))), text)
    return _LIBTEST_FAILURES.sub(lambda m: "failures:\n\n" + "".join(sorted(re.split(r"(?m)^(?=---- )", _BACKTRACE_NOTE.sub(
        "", m.group(1))))) + "\nfailures:\n", text)


def _without_make_closing(messages: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """make's closing "*** ... Error" lines dropped: they differ by design (see README);
    and the interpreter named in a Python lint follow-up made one, and Go's and Jest's
    run-dependent numbers made placeholders, and cargo's other jobs and crates dropped, its test
    binaries' hashes made placeholders and libtest's lines sorted."""
    out = []
    for role, content in messages:
        content = _LINTER_PYTHON.sub("## Running: python -m flake8 ", _MAKE_CLOSING.sub("", content))
        for pattern, placeholder in _RUN_NUMBERS + _CARGO_JOBS:
            content = pattern.sub(placeholder, content)
        out.append((role, _libtest_sorted(content)))
    return out


def _normal(messages: list[dict], names: list[str]) -> list[tuple[str, str]]:
    out = []
    for m in messages:
        content = str(m.get("content") or "")
        if "added these files to the chat" in content:
            content = _files_message_sorted(content)
        out.append((m.get("role"), _set_file_list(content, names)))
    return out


def compare(server: ScriptedServer, slugs: list[str], failure_text: str, left: str = "aider",
            right: str = "harness") -> tuple[list[str], bool]:
    """Per exercise, the requests `left` sent against those `right` sent."""
    lines, all_ok = [], True
    by = {route: defaultdict(list) for route in (left, right)}
    for route in by:
        for entry in server.log[route]:
            by[route][server.exercises.of(_text(entry["body"]))].append(entry)
    totals = defaultdict(int)
    unplaced = sum(len(by[route].get(None, [])) for route in by)
    for slug in slugs:
        a, h = by[left].get(slug, []), by[right].get(slug, [])
        names = server.exercises.names[slug]
        seq_a, seq_h = [e["kind"] for e in a], [e["kind"] for e in h]
        first_a = next((e for e in a if e["kind"] == "task"), None)
        first_h = next((e for e in h if e["kind"] == "task"), None)
        system_same = first_message_same = requests_same = False
        if first_a and first_h:
            ma, mh = first_a["body"]["messages"], first_h["body"]["messages"]
            system_same = ma[0]["content"] == mh[0]["content"]
            first_message_same = _set_file_list(_last_user(first_a["body"]), names) == _set_file_list(_last_user(first_h["body"]), names)
            requests_same = _normal(ma, names) == _normal(mh, names)
        fb_a = next((e for e in a if e["kind"] == "feedback"), None)
        fb_h = next((e for e in h if e["kind"] == "feedback"), None)
        tail = failure_text.format(file_list=" ".join(names))
        carries = [e is not None and all(word in (msg := _set_file_list(_last_user(e["body"]), names))
                                         for word in server.language.diagnostics) and tail in msg
                   for e in (fb_a, fb_h)]
        pairs = [(_normal(x["body"]["messages"], names), _normal(y["body"]["messages"], names)) for x, y in zip(a, h)]
        alike = sum(x == y for x, y in pairs)
        make_only = sum(x != y and _without_make_closing(x) == _without_make_closing(y) for x, y in pairs)
        # The request's other parameters (model, temperature, ...), which a sampling
        # setting of either harness would change.
        totals["params"] += sum(_params(x["body"]) != _params(y["body"]) for x, y in zip(a, h))
        totals["requests"] += len(a)
        totals["identical"] += alike
        totals["make"] += make_only
        ok = seq_a == seq_h and system_same and first_message_same and all(carries)
        all_ok &= ok
        lines.append(f"{slug}: {'same' if ok else 'DIFFERENT'}; calls {left} {len(seq_a)} {right} {len(seq_h)}"
                     f"{'' if seq_a == seq_h else f' ({left} {seq_a} / {right} {seq_h})'}; system prompt "
                     f"{'identical' if system_same else 'differs'}; first user message "
                     f"{'identical' if first_message_same else 'differs'}; whole first request "
                     f"{'identical' if requests_same else 'differs'}; requests identical: {alike} of {len(a)}, "
                     f"{make_only} more but for {AS_ALIKE}; "
                     f"round-2 message carries diagnostics and "
                     f"failure text: {left} {carries[0]}, {right} {carries[1]}")
        if fb_a and fb_h:
            diff = list(difflib.unified_diff(_last_user(fb_a["body"]).splitlines(), _last_user(fb_h["body"]).splitlines(),
                                             f"{left} round 2", f"{right} round 2", lineterm="", n=0))
            if diff:
                lines += ["    " + d for d in diff[:60]] + (["    ..."] if len(diff) > 60 else [])
    lines.append(f"all exercises: {totals['requests']} requests by {left}; identical {totals['identical']}, "
                 f"{totals['make']} more but for {AS_ALIKE}, "
                 f"{totals['requests'] - totals['identical'] - totals['make']} otherwise; "
                 f"other request parameters differ in {totals['params']}"
                 + (f"; {unplaced} requests named no exercise" if unplaced else ""))
    return lines, all_ok


def _params(body: dict) -> dict:
    return {k: v for k, v in body.items() if k != "messages"}


def _stat(text: str, key: str) -> str | None:
    m = re.search(rf"^\s*{key}: (\S+)", text, re.MULTILINE)
    return m.group(1) if m else None


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--aider-checkout", type=Path, required=True)
    ap.add_argument("--exercises", type=Path, required=True,
                    help="the polyglot benchmark's cpp/, python/, go/, rust/ or javascript/exercises/practice")
    ap.add_argument("--aider-python", type=Path, help="Python of a venv with aider-chat and the benchmark's requirements")
    ap.add_argument("--tasks", help="comma-separated exercises (default: all)")
    ap.add_argument("--out", type=Path, help="keep the work folder and request logs here")
    ap.add_argument("--aider-again", action="store_true",
                    help="run Aider's benchmark a second time and compare it with itself: what varies between its own runs")
    ap.add_argument("--compare-only", action="store_true", help="compare the logs an earlier run left in --out")
    ap.add_argument("--against", type=Path, help="an earlier run's --out (another revision of the harness, say): "
                                                  "this run's harness requests compared with that run's")
    ap.add_argument("--first-answer", choices=("broken", "stub"), default="broken",
                    help="the first answer: the reference with a broken line (the default), or the stub as shipped "
                         "(its tests then fail at run time where it compiles: the test output a model sees then)")
    ap.add_argument("--mount", action="append", default=[], metavar="PATH=DIR",
                    help="bind DIR at the absolute PATH in Aider's side (JavaScript: /npm-install=DIR, a folder "
                         "where npm installed Jest and the Babel preset, which Aider's npm-test.sh links)")
    ap.add_argument("--timeout", type=float, default=7200)
    args = ap.parse_args()
    args.mounts = parse_mounts(args.mount)

    args.language = args.exercises.resolve().parent.parent.name
    if args.language not in LANGUAGES:
        ap.error(f"{args.exercises}: not a polyglot-benchmark/<language>/exercises/practice folder of "
                 f"{' or '.join(LANGUAGES)}")
    missing = [m for m in LANGUAGES[args.language].mounts if m not in args.mounts or not args.mounts[m].is_dir()]
    if missing and not args.compare_only:
        ap.error(f"Aider's {args.language} tests need --mount {missing[0]}=DIR (an existing folder)")
    slugs = sorted(p.name for p in args.exercises.iterdir() if (p / ".meta" / "config.json").is_file())
    if args.tasks:
        slugs = [s for s in slugs if s in args.tasks.split(",")]
    tasks = {slug: load_task(args.exercises / slug) for slug in slugs}
    failure_text = read_prompts(args.aider_checkout).test_failures
    work = Path(args.out or tempfile.mkdtemp(prefix="aider-side-by-side-"))
    server = ScriptedServer(tasks, LANGUAGES[args.language], args.first_answer)
    if args.compare_only:
        server.log.update(json.loads((work / "requests.json").read_text()))
        printed = (work / "aider-stats.txt").read_text()
        report = json.loads((work / "report.json").read_text())
    else:
        if args.aider_python is None:
            ap.error("--aider-python is needed to run Aider's benchmark")
        work.mkdir(parents=True, exist_ok=True)
        with server:
            aider_dir, printed, env = run_aider(args, work, server.server.base("aider"), slugs)
            if args.aider_again:
                run_aider(args, work, server.server.base("aider-again"), slugs, name="again")
            report = run_harness(args, work, server.server.base("harness"), slugs)
        (work / "requests.json").write_text(json.dumps(server.log, indent=1))
        (work / "aider-stats.txt").write_text(printed)

    lines, same = compare(server, slugs, failure_text)
    print("\n".join(lines))
    if server.log.get("aider-again"):
        print("\nAider's benchmark against itself (a second run, same server):")
        print("\n".join(line for line in compare(server, slugs, failure_text, "aider", "aider-again")[0]
                        if not line.startswith("    ")))
    if args.against is not None:
        server.log["before"] = json.loads((args.against / "requests.json").read_text())["harness"]
        print(f"\nThe harness against the harness of {args.against}:")
        print("\n".join(line for line in compare(server, slugs, failure_text, "before", "harness")[0]
                        if not line.startswith("    ")))
    ours = next(r for r in report["data"]["aider_summary"] if r["trial"] in (1, None))
    print("\nrequests: " + ", ".join(f"{route} {len(entries)}" for route, entries in server.log.items()))
    for key in ("pass_num_1", "pass_num_2", "pass_rate_1", "pass_rate_2", "percent_cases_well_formed"):
        print(f"{key}: aider {_stat(printed, key)}, harness {ours[key]}")
    agree = all(_stat(printed, k) == str(ours[k]) for k in ("pass_num_1", "pass_num_2"))
    if not args.compare_only:
        print("\nAider's results folder, made tricky, read by Aider's summary code and by `harness report --aider`:")
        print("\n".join(check_import(args, work, env, aider_dir)))
    print(f"\nevery exercise the same: {same}; pass numbers agree: {agree}; logs in {work}")


if __name__ == "__main__":
    main()
