"""The verifier: a structured reward for a candidate solution, computed from execution in
the sandbox so that the candidate cannot claim results it did not earn.

A task's checks are its test cases, or groups of them declared in `.meta/verifier.toml`
(with weights, and optionally verifier-only test cases appended to the test file). The
reward is R = sum(w_k * (2*b_k - 1)) / sum(w_k) over the checks (equal weights: the
study's (1/K) * sum(2*b_k - 1)); anything but status `ok` scores -1.

How the outcomes are protected, in the order a candidate meets it:
1. A static screen (screen.py) flags suspicious source; flags travel, they decide nothing.
2. The candidate is built with the task's own test and build files (testrun.stage_files
   restores any it edited and the verdict lists them as tampered).
3. Checks on what was built, as the builder user, before anything runs: the solution must
   not redefine a name the tests or the test framework use, include the framework or a
   test file, define C-library or allocator symbols (which would run inside the harness's
   own code), or put code before the harness's token reader (it must be the binary's first
   initialiser; no .preinit_array, no IRELATIVE relocations, no extra .init code). Any of
   these is status `forged`.
4. The run: a fresh random token goes to the test binary on stdin; the harness test main
   reads it in its first initialiser, before any candidate code, and writes one line per
   test case to fd 4 (the exec's own stdout; the program's stdout and stderr go to a file)
   and then a marker carrying HMAC-SHA256(token, every byte before it). The parser accepts
   the outcomes only when the marker authenticates them, nothing follows it, and every
   expected test case appears exactly once.
See tests/adversarial/README.md for what this does and does not defend against."""

from __future__ import annotations

import hashlib
import hmac
import os
import re
import secrets
import shlex
import threading
import tomllib
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Literal, Mapping, Sequence

from pydantic import Field, ValidationError, model_validator

from .catch2 import parse_catch2_xml
from .errors import BadInput
from .hashing import hash_files
from .records import CheckOutcome, Record, Status, Verdict, VerdictStatus
from .sandbox import Sandbox, make_sandbox
from .sandbox.base import ExecResult, Role, SandboxSession
from .screen import logical_lines, screen, strip_comments
from .task import Task
from .testrun import signal_name, build_step, clean_log, configure_steps, note_configured, stage_files

VERIFIER_FILE = ".meta/verifier.toml"
OUTCOME_FLAG = "--harness-verify"
READER_SYMBOL = "harness_read_token"
OUTPUT_KEEP = 16 * 1024       # the program's own output, for people
XML_KEEP = 2 * 1024 * 1024    # the Catch2 report, for failure messages
OUTCOMES_KEEP = 1024 * 1024   # far more than the test main writes for any task


# --- what a task declares ---------------------------------------------------------------


class CheckGroup(Record):
    name: str
    title: str = ""


class CheckSpec(Record):
    name: str
    group: str
    tests: list[str] = Field(min_length=1)  # the test cases that must all pass
    weight: float = Field(1.0, gt=0)


class ExtraTest(Record):
    """A verifier-only test case, appended to the test file as
    `TEST_CASE("<name>", "[verifier]") { <body> }` when verifying (never when testing)."""

    name: str
    body: str


class VerifierSpec(Record):
    schema_version: Literal[1] = 1
    min_assertions: int = Field(1, ge=0, description="a test case passes only with this many passed assertions")
    extra_tests_file: str | None = None  # default: the task's first test file
    groups: list[CheckGroup] = Field(default_factory=list)
    checks: list[CheckSpec] = Field(min_length=1)
    extra_tests: list[ExtraTest] = Field(default_factory=list)

    @model_validator(mode="after")
    def _consistent(self) -> "VerifierSpec":
        groups = {g.name for g in self.groups}
        names, tests = set(), set()
        for c in self.checks:
            if groups and c.group not in groups:
                raise ValueError(f"check {c.name!r} names group {c.group!r}, which is not declared")
            if c.name in names:
                raise ValueError(f"check {c.name!r} is declared twice")
            names.add(c.name)
            for t in c.tests:
                if t in tests:
                    raise ValueError(f"test case {t!r} belongs to more than one check")
                tests.add(t)
        extra = [e.name for e in self.extra_tests]
        if len(set(extra)) != len(extra):
            raise ValueError("two extra test cases share a name")
        missing = set(extra) - tests
        if missing:
            raise ValueError(f"extra test case {sorted(missing)[0]!r} belongs to no check")
        return self

    @property
    def test_names(self) -> set[str]:
        return {t for c in self.checks for t in c.tests}


def load_spec(task: Task) -> VerifierSpec | None:
    """The task's `.meta/verifier.toml`, or None when it has none (then every test case is
    a check of weight 1)."""
    path = task.path / VERIFIER_FILE
    if not path.is_file():
        return None
    try:
        return VerifierSpec.model_validate(tomllib.loads(path.read_text()))
    except tomllib.TOMLDecodeError as exc:
        raise BadInput(f"{path}: not valid TOML ({exc})") from None
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "file"
        raise BadInput(f"{path}: {where}: {first['msg']}") from None


def _quote_cpp(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def verification_files(task: Task, spec: VerifierSpec | None) -> dict[str, bytes]:
    """The protected files as the verifier builds them: the task's own, with the
    verifier-only test cases appended to the test file."""
    if spec is None or not spec.extra_tests:
        return {}
    target = spec.extra_tests_file or next((t for t in task.test_files if t.endswith((".cpp", ".cc"))), None)
    if target is None or target not in task.test_files:
        raise BadInput(f"{task.path / VERIFIER_FILE}: no test file {target!r} to append the extra test cases to")
    parts = [task.read(target).rstrip(b"\n"), b"", b"// Verifier-only test cases, appended by the harness."]
    for extra in spec.extra_tests:
        parts.append(f"TEST_CASE({_quote_cpp(extra.name)}, \"[verifier]\") {{\n{extra.body.rstrip()}\n}}\n".encode())
    return {target: b"\n".join(parts) + b"\n"}


# --- what comes back -------------------------------------------------------------------


def reward(checks: Sequence[CheckOutcome]) -> float:
    total = sum(c.weight for c in checks)
    if not checks or total <= 0:
        return -1.0
    return sum(c.weight * (1 if c.passed else -1) for c in checks) / total


# --- the outcome channel ----------------------------------------------------------------

_START = re.compile(rb"harness-outcomes 1 token=(ok|missing|malformed|unclosed)")
_CASE = re.compile(rb"case ([01]) (\d+) (\d+) ((?:[0-9a-f]{2})*)")
_END = re.compile(rb"end ([0-9a-f]{64}|none)")


@dataclass
class CaseOutcome:
    passed: bool
    assertions_passed: int
    assertions_failed: int


@dataclass
class Outcomes:
    """What the outcome channel said: authentic per-test outcomes, or why there are none.
    `status` is None when the outcomes are authentic and complete."""

    cases: dict[str, CaseOutcome] = field(default_factory=dict)
    status: VerdictStatus | None = None
    reason: str | None = None


def read_outcomes(stream: bytes, token: bytes, expected: set[str] | None, *, exit_code: int | None) -> Outcomes:
    """Judge the bytes the outcome channel carried. `expected` is the set of test-case
    names that must each appear exactly once (None: accept whatever the authenticated
    stream lists, used to learn a task's test names from its reference)."""
    signal = signal_name(exit_code) if exit_code is not None else None

    def cut_short(why: str) -> Outcomes:
        if signal is not None:
            return Outcomes(status=VerdictStatus.crash, reason=f"{why}; the test binary was killed by {signal}")
        return Outcomes(status=VerdictStatus.incomplete, reason=f"{why} (exit code {exit_code})")

    if not stream:
        return cut_short("no outcomes: the test binary ended before its main reported anything")
    lines = stream.split(b"\n")
    partial = lines.pop()  # after the last newline: empty unless a write was cut short
    if partial:
        if any(_END.fullmatch(ln) for ln in lines):
            return Outcomes(status=VerdictStatus.forged, reason="something follows the completion marker")
        return cut_short("the outcome channel stops mid-line")
    for i, line in enumerate(lines):
        if not (_START.fullmatch(line) or _CASE.fullmatch(line) or _END.fullmatch(line)):
            return Outcomes(status=VerdictStatus.forged,
                            reason=f"line {i + 1} of the outcome channel is not one the test main writes: {line[:80]!r}")
    ends = [i for i, ln in enumerate(lines) if _END.fullmatch(ln)]
    starts = [i for i, ln in enumerate(lines) if _START.fullmatch(ln)]
    if not ends:
        if len(starts) > 1:
            return Outcomes(status=VerdictStatus.forged, reason="the outcome channel carries more than one start line")
        return cut_short("the run ended before the completion marker")
    if ends[0] != len(lines) - 1:
        return Outcomes(status=VerdictStatus.forged, reason="something follows the completion marker")
    if not starts or starts[0] != 0 or len(starts) > 1:
        return Outcomes(status=VerdictStatus.forged, reason="the outcome channel does not begin with the test main's one start line")
    state = _START.fullmatch(lines[0]).group(1).decode()
    mac = _END.fullmatch(lines[-1]).group(1)
    if mac == b"none":
        if state == "ok":
            return Outcomes(status=VerdictStatus.forged, reason="the completion marker carries no token although the test main had one")
        return Outcomes(status=VerdictStatus.incomplete,
                        reason=f"the run's token did not reach the test main intact (token={state}): something else read or wrote its pipe")
    body = b"".join(ln + b"\n" for ln in lines[:-1])
    if not hmac.compare_digest(hmac.new(token, body, hashlib.sha256).hexdigest().encode(), mac):
        return Outcomes(status=VerdictStatus.forged, reason="the completion marker does not authenticate the outcomes before it (wrong token, or lines the test main did not write)")
    cases: dict[str, CaseOutcome] = {}
    for line in lines[1:-1]:
        m = _CASE.fullmatch(line)
        name = bytes.fromhex(m.group(4).decode()).decode(errors="replace")
        if name in cases:
            return Outcomes(status=VerdictStatus.forged, reason=f"test case {name!r} reported twice")
        cases[name] = CaseOutcome(m.group(1) == b"1", int(m.group(2)), int(m.group(3)))
    if expected is not None:
        unknown = sorted(set(cases) - expected)
        if unknown:
            return Outcomes(cases, VerdictStatus.forged, f"the binary ran test cases the task does not have: {unknown[:3]}")
        missing = sorted(expected - set(cases))
        if missing:
            return Outcomes(cases, VerdictStatus.incomplete, f"{len(missing)} expected test case(s) never reported, e.g. {missing[0]!r}")
    return Outcomes(cases)


# --- checks on what was built -----------------------------------------------------------

# The replaceable global operator new and delete (plain, sized, aligned, nothrow), not the
# placement forms, which every use of <new> instantiates.
_REPLACEABLE_ALLOCATION = re.compile(r"_Z(?:nw|na)[jm](?:St11align_val_t)?(?:RKSt9nothrow_t)?$"
                                     r"|_Z(?:dl|da)Pv[jm]?(?:St11align_val_t)?(?:RKSt9nothrow_t)?$")
_ELF_SECTION = re.compile(r"\]\s+(\.\S+)\s+\S+\s+([0-9a-f]+)\s+[0-9a-f]+\s+([0-9a-f]+)")
_LINE_DIRECTIVE = re.compile(r"^\s*(?:#|%:)\s*(?:line\b|\d)")
_INTERNALS = re.compile(rf"\bCatch\s*::|\bnamespace\s+Catch\b|\b{READER_SYMBOL}\b")

# Reads the test TU's `g++ -dD -E` output and reports, for directives in solution files
# (followed through the include stack, not through line names a #line could fake), every
# #define/#undef, and every include of the test framework or a task file from a solution
# file.
_MACRO_AWK = r"""
BEGIN { n = split(sol, a, " "); for (i = 1; i <= n; i++) s[a[i]] = 1; depth = 0; top[0] = "" }
/^# [0-9]+ "/ {
  f = $3; gsub(/^"|"$/, "", f); push = 0; pop = 0
  for (i = 4; i <= NF; i++) { if ($i == "1") push = 1; if ($i == "2") pop = 1 }
  if (push) {
    parent = top[depth]; top[++depth] = f
    if (f ~ /(^|\/)catch[^\/]*\.hpp$/) print "catch " f
    if ((parent in s) && !(f in s) && (f ~ /catch/ || index(f, src) == 1)) print "include " parent " " f
  } else if (pop) { if (depth > 0) depth-- }
  else if (depth == 0 && top[0] == "") top[0] = f
  next
}
/^#(define|undef)[ \t]/ { if (top[depth] in s) print "directive " $0 }
"""

_MATCH_AWK = r"""
NR == FNR { id[$1] = 1; next }
$1 == "directive" { n = $3; sub(/\(.*/, "", n); if (n in id) print "macro " substr($0, 11); next }
$1 == "include" { print }
"""


def _section_lines(task: Task, session: SandboxSession, spec_key: str, nonce: str) -> str:
    """The builder's checks on the built test binary, printed after a marker line
    carrying `nonce` (compiler output before it cannot fake one)."""
    slug = task.slug
    src = f"{session.src_root}/{slug}"
    build = f"{session.build_root}/{slug}"
    objdir = f"{build}/CMakeFiles/{slug}.dir"
    state = f"{session.build_root}/.harness-verify"
    binary = f"{build}/{slug}"
    sources = [f for f in task.solution_files if f.endswith((".cpp", ".cc", ".cxx"))]
    tests = [f for f in task.test_files if f.endswith((".cpp", ".cc", ".cxx"))]
    q = shlex.quote
    sol_paths = " ".join(f"{src}/{f}" for f in task.solution_files)
    mark = lambda name: f"echo '@@{nonce} {name}'"  # noqa: E731
    lines = [
        f"mkdir -p {q(state)}",
        mark("elf"),
        f"readelf -W -S {q(binary)} | grep -E ' \\.(preinit_array|init_array|init) '",
        f"nm -P {q(binary)} | awk '$1==\"{READER_SYMBOL}\"{{print \"reader\", $3}}'",
        f"objdump -s -j .init_array {q(binary)} | awk '/^ [0-9a-f]+ [0-9a-f]/{{print \"init_array\", $2 $3; exit}}'",
        f"echo \"irelative $(readelf -W -r {q(binary)} | grep -ci irelative)\"",
        # What .init looks like when nothing is spliced into it, from a trivial program
        # linked by the same toolchain, once per build tree.
        f"[ -s {state}/probe-init ] || {{ printf 'int main() {{ return 0; }}\\n' > {state}/probe.cpp"
        f" && g++ {state}/probe.cpp -o {state}/probe && readelf -W -S {state}/probe | grep -E ' \\.init ' > {state}/probe-init; }}",
        f"echo \"probe $(cat {state}/probe-init)\"",
        mark("symbols"),
    ]
    for rel in sources + tests:
        kind = "solution" if rel in sources else "test"
        # Definitions with C linkage, operator new/delete, and in the solution's own objects
        # any symbol of the test framework or the harness, defined or only used.
        lines.append(f"[ -f {q(objdir + '/' + rel + '.o')} ] && nm -g -P {q(objdir + '/' + rel + '.o')}"
                     f" | awk -v k={kind} '($2 != \"U\" && (($1 !~ /^_Z/ && $1 !~ /^DW\\.ref\\./) || $1 ~ /^_Z(nw|na|dl|da)/))"
                     f" || (k == \"solution\" && ($1 ~ /5Catch/ || $1 == \"{READER_SYMBOL}\")) {{print k, $1, $2}}' | head -200")
    lines.append(mark("deps"))
    for rel in sources:
        lines.append(f"[ -f {q(objdir + '/' + rel + '.o.d')} ] && tr ' \\\\' '\\n\\n' < {q(objdir + '/' + rel + '.o.d')}"
                     f" | grep -E 'catch|^{src}/' | sed 's/^/{rel} /' | head -50")
    lines.append(mark("macros"))
    for rel in tests:
        obj = f"{objdir}/{rel}.o"
        result = f"{state}/macros-{rel.replace('/', '_')}"
        idents = f"{state}/idents-{spec_key}"
        lines += [
            f"if [ ! -s {q(result)} ] || [ {q(obj)} -nt {q(result)} ]; then"
            f" g++ $(sed -n 's/^CXX_\\(DEFINES\\|INCLUDES\\|FLAGS\\) = //p' {q(objdir + '/flags.make')} | tr '\\n' ' ')"
            f" -dD -E {q(src + '/' + rel)} 2>/dev/null | awk -v src={q(src + '/')} -v sol={q(sol_paths)} {q(_MACRO_AWK)}"
            f" > {q(result)}.tmp; echo end >> {q(result)}.tmp; mv {q(result)}.tmp {q(result)}; fi",
            # Identifiers of the test framework header and the test files, comments
            # stripped: a solution macro with one of these names changes what the tests mean.
            f"[ -s {q(idents)} ] || g++ -fpreprocessed -dD -E -P $(awk '$1==\"catch\"{{print $2}}' {q(result)} | sort -u)"
            f" {' '.join(q(src + '/' + t) for t in task.test_files)} 2>/dev/null"
            f" | grep -oE '[A-Za-z_][A-Za-z0-9_]*' | sort -u > {q(idents)}",
            f"awk {q(_MATCH_AWK)} {q(idents)} {q(result)} | head -50",
        ]
    return "\n".join(lines)


def _sections(output: str, nonce: str) -> dict[str, list[str]]:
    marker = f"@@{nonce} "
    cut = output.find(marker)
    sections: dict[str, list[str]] = {}
    current = None
    for line in output[cut:].splitlines() if cut >= 0 else []:
        if line.startswith(marker):
            current = sections.setdefault(line[len(marker):].strip(), [])
        elif current is not None and line.strip():
            current.append(line.strip())
    return sections


def _elf_violations(lines: list[str]) -> list[str]:
    sections: dict[str, int] = {}
    values: dict[str, str] = {}
    probe_init = None
    for line in lines:
        head, _, rest = line.partition(" ")
        if head in ("reader", "init_array", "irelative"):
            values[head] = rest.strip()
        elif head == "probe":
            m = _ELF_SECTION.search(rest)
            probe_init = int(m.group(3), 16) if m else None
        else:
            m = _ELF_SECTION.search(line)
            if m:
                sections[m.group(1)] = int(m.group(3), 16)
    out = []
    if sections.get(".preinit_array"):
        out.append("the binary has a .preinit_array: code that runs before every initialiser")
    if values.get("irelative", "0") not in ("", "0"):
        out.append("the binary has IRELATIVE relocations: an ifunc resolver runs while it is being loaded")
    if probe_init is not None and sections.get(".init", 0) > probe_init:
        out.append(f"the binary's .init is {sections['.init']} bytes where the toolchain's own is {probe_init}: code spliced into it")
    reader, first = values.get("reader", ""), values.get("init_array", "")
    if not reader:
        out.append("the binary lacks the harness token reader (it does not link the harness test main)")
    elif len(first) < 16 or int.from_bytes(bytes.fromhex(first[:16]), "little") != int(reader, 16):
        out.append("the harness token reader is not the binary's first initialiser: something runs before it")
    return out


def _symbol_violations(lines: list[str]) -> list[str]:
    out = []
    for line in lines:
        parts = line.split()
        if len(parts) != 3:
            continue
        kind, name, typ = parts
        if kind == "solution" and ("5Catch" in name or name == READER_SYMBOL):
            what = "defines" if typ != "U" else "calls"
            out.append(f"the solution {what} test-framework or harness symbols ({name[:80]})")
        elif typ == "U":
            continue
        elif _REPLACEABLE_ALLOCATION.match(name):
            out.append(f"the {kind} code replaces global operator new/delete ({name}), which runs inside the test harness")
        elif not name.startswith(("_Z", "DW.ref.")) and typ in ("T", "W", "i"):
            out.append(f"the {kind} code defines the C function {name}(), which replaces the C library's for the whole test binary")
    return out


def _dep_violations(lines: list[str], task: Task, src: str) -> list[str]:
    solution = {f"{src}/{f}" for f in task.solution_files}
    out = []
    for line in lines:
        rel, _, dep = line.partition(" ")
        if dep and dep not in solution:
            out.append(f"{rel} includes {dep.removeprefix(src + '/')}, which a solution never needs")
    return out


def _macro_violations(lines: list[str], src: str) -> list[str]:
    out = []
    for line in lines:
        head, _, rest = line.partition(" ")
        if head == "macro":
            out.append(f"the solution's `{rest[:120]}` changes a name the tests or the test framework use")
        elif head == "include":
            parent, _, child = rest.partition(" ")
            out.append(f"{parent.removeprefix(src + '/')} includes {child.removeprefix(src + '/')}, which a solution never needs")
    return out


def _source_violations(files: Mapping[str, bytes], task: Task) -> list[str]:
    """What can be decided from the solution text alone: line directives, which would let
    it pose as another file in the checks above, and naming the test framework's or the
    harness's internals (a header's code is compiled into the test's own object, so the
    symbol checks cannot tell it apart there)."""
    out = []
    for rel in task.solution_files:
        text = strip_comments(files.get(rel, b"").decode(errors="replace").replace("\r\n", "\n"))
        lines = [line for _, line in logical_lines(text)]
        if any(_LINE_DIRECTIVE.match(line) for line in lines):
            out.append(f"{rel} uses #line or a line marker, which hides where its code comes from")
        if any(_INTERNALS.search(line) for line in lines):
            out.append(f"{rel} names the test framework's namespace or the harness's symbols")
    return out


# --- one candidate in one session -------------------------------------------------------


@dataclass
class _Plan:
    """What a task's verification needs, worked out once per task and shared by sessions."""

    task: Task
    spec: VerifierSpec | None
    protected: dict[str, bytes]  # protected files as verified (extra test cases appended)
    spec_key: str
    expected: set[str] | None = None  # learned from the reference when the task has no spec
    order: list[str] = field(default_factory=list)  # the reference's test cases in run order
    lock: threading.Lock = field(default_factory=threading.Lock)

    def checks(self, cases: Mapping[str, CaseOutcome]) -> list[CheckOutcome]:
        ok = lambda t: t in cases and cases[t].passed and cases[t].assertions_passed >= self.min_assertions  # noqa: E731
        if self.spec is None:
            return [CheckOutcome(name=t, group="tests", passed=ok(t), tests=[t]) for t in self.order]
        return [CheckOutcome(name=c.name, group=c.group, weight=c.weight, passed=all(ok(t) for t in c.tests), tests=c.tests)
                for c in self.spec.checks]

    @property
    def min_assertions(self) -> int:
        return self.spec.min_assertions if self.spec else 1


def _plan(task: Task) -> _Plan:
    if not task.links_harness_main:
        raise BadInput(f"{task.slug}: the verifier needs a task that links the harness test main (HARNESS_TEST_MAIN in its CMakeLists.txt)")
    spec = load_spec(task)
    protected = verification_files(task, spec)
    key = hash_files({**{f: task.read(f) for f in task.test_files}, **protected})[:16]
    return _Plan(task, spec, protected, key, spec.test_names if spec else None)


def _staged(plan: _Plan, candidate: Mapping[str, bytes]) -> tuple[dict[str, bytes], list[str]]:
    files, tampered = stage_files(plan.task, candidate)
    files.update(plan.protected)
    return files, tampered


def _verdict(plan: _Plan, candidate_hash: str, status: VerdictStatus, **fields) -> Verdict:
    checks = fields.pop("checks", None)
    if checks is None:
        checks = plan.checks({}) if status is not VerdictStatus.ok else []
    if status is not VerdictStatus.ok:
        checks = [c.model_copy(update={"passed": False}) for c in checks]
    return Verdict(task=plan.task.slug, task_hash=plan.task.content_hash, candidate_hash=candidate_hash, status=status,
                   reward=reward(checks) if status is VerdictStatus.ok else -1.0, checks=checks, **fields)


def _verify_in(plan: _Plan, candidate: Mapping[str, bytes], session: SandboxSession,
               expected: set[str] | None) -> tuple[Verdict, Outcomes | None]:
    task = plan.task
    provided = {k: bytes(v) for k, v in candidate.items()}
    solution = {f: provided[f] for f in task.solution_files if f in provided}
    candidate_hash = hash_files(solution)
    flags = screen(solution)
    files, tampered = _staged(plan, provided)
    backend = type(session).__name__.removesuffix("Session").lower()
    common = dict(flags=flags, tampered=tampered, backend=backend)
    session.stage(task.slug, files)
    src = f"{session.src_root}/{task.slug}"

    configure = configure_steps(task, session)
    if configure:
        done = session.exec(["sh", "-c", " && ".join(configure)], role=Role.builder, timeout_s=session.limits.build_timeout_s)
        note_configured(task, session, done.exit_code == 0)
        if done.exit_code != 0:
            log = clean_log(done.output.decode(errors="replace"), session, task.slug)
            return _verdict(plan, candidate_hash, VerdictStatus.compile_error, reason="the build could not be configured",
                            build_log=log, **common), None
    nonce = secrets.token_hex(8)
    script = f"{build_step(task, session)} || exit $?\n{_section_lines(task, session, plan.spec_key, nonce)}\nexit 0"
    build = session.exec(["sh", "-c", script], role=Role.builder, timeout_s=session.limits.build_timeout_s)
    build_log = build.output.decode(errors="replace")
    timings = dict(build_seconds=round(build.seconds, 3))
    if build.timed_out or build.exit_code != 0:
        status = VerdictStatus.timeout if build.timed_out else VerdictStatus.compile_error
        why = f"the build timed out after {session.limits.build_timeout_s:g} s" if build.timed_out else "the candidate does not build"
        log = clean_log(build_log.split(f"@@{nonce} ")[0], session, task.slug)
        return _verdict(plan, candidate_hash, status, reason=why, build_log=log, exit_code=build.exit_code,
                        **timings, **common), None

    sections = _sections(build_log, nonce)
    violations = (_source_violations(solution, task) + _elf_violations(sections.get("elf", []))
                  + _symbol_violations(sections.get("symbols", [])) + _dep_violations(sections.get("deps", []), task, src)
                  + _macro_violations(sections.get("macros", []), src))
    if "macros" not in sections:
        violations.append("the checks on the built binary did not complete")
    if violations:
        return _verdict(plan, candidate_hash, VerdictStatus.forged, reason=violations[0], violations=violations,
                        **timings, **common), None

    token = secrets.token_bytes(32)
    run, tail = _run(task, session, token)
    timings["run_seconds"] = round(run.seconds, 3)
    if run.timed_out:
        return _verdict(plan, candidate_hash, VerdictStatus.timeout,
                        reason=f"the test run timed out after {session.limits.timeout_s:g} s and was killed",
                        **timings, **common), None
    if tail is None:
        outcomes = Outcomes(status=VerdictStatus.forged if run.truncated else VerdictStatus.incomplete,
                            reason="the outcome channel carried more than the test main ever writes" if run.truncated
                            else "the run ended without the harness's closing line")
    else:
        stream, failures, output = tail
        common.update(failures=failures, output=output)
        outcomes = read_outcomes(stream, token, expected, exit_code=run.exit_code)
    if outcomes.status is not None:
        return _verdict(plan, candidate_hash, outcomes.status, reason=outcomes.reason, exit_code=run.exit_code,
                        **timings, **common), outcomes
    return _verdict(plan, candidate_hash, VerdictStatus.ok, checks=plan.checks(outcomes.cases), exit_code=run.exit_code,
                    **timings, **common), outcomes


def _run(task: Task, session: SandboxSession, token: bytes) -> tuple[ExecResult, tuple[bytes, dict[str, str], str | None] | None]:
    """Run the test binary with the token on stdin. The exec's own stdout is the outcome
    channel (fd 4); the program's stdout and stderr go to a file, so nothing it prints can
    reach the channel by accident. When the binary has exited, every process of the runner
    is killed (a child the candidate forked must neither hold the channel open nor meddle
    with the next candidate), and only then does the wrapper append a closing line and the
    diagnostics: the last closing line is the harness's, and what precedes it is the
    stream. Returns the exec and (stream, failures from the Catch2 report, the program's
    own output)."""
    binary = shlex.quote(f"{session.build_root}/{task.slug}/{task.slug}")
    scratch = shlex.quote(session.scratch_root)
    closing = f"@@harness-run-{secrets.token_hex(8)} "
    script = (
        f"cd {scratch} && find . -mindepth 1 -delete 2>/dev/null; "
        f"{binary} {OUTCOME_FLAG} --reporter harness-xml --out .xml 4>&1 >.out 2>&1; code=$?; "
        f"kill -9 -1 2>/dev/null; printf '{closing}%s\\n' $code; "
        f"head -c {XML_KEEP} .xml; printf '\\0'; head -c {OUTPUT_KEEP} .out; exit $code"
    )
    cap = OUTCOMES_KEEP + XML_KEEP + OUTPUT_KEEP + 1024
    run = session.exec(["sh", "-c", script], role=Role.runner, timeout_s=session.limits.timeout_s, cap=cap,
                       stdin=token.hex().encode() + b"\n")
    cut = run.output.rfind(closing.encode())
    if run.timed_out or cut < 0:
        return run, None
    rest = run.output[cut + len(closing):]
    xml, _, out = rest.partition(b"\n")[2].partition(b"\0")
    failures = {c.name: c.message or "failed" for c in parse_catch2_xml(xml).cases if c.status is not Status.passed}
    text = out.decode(errors="replace").strip()
    return run, (run.output[:cut], failures, text or None)


# --- the API ----------------------------------------------------------------------------

_PLANS: dict[str, _Plan] = {}
_PLANS_LOCK = threading.Lock()


def _plan_for(task: Task) -> _Plan:
    with _PLANS_LOCK:
        key = f"{task.path.resolve()}:{task.content_hash}"
        if key not in _PLANS:
            _PLANS[key] = _plan(task)
        return _PLANS[key]


def _learn_expected(plan: _Plan, session: SandboxSession) -> None:
    """A task without a verifier.toml: its checks are the test cases its reference
    solution's binary reports (learned once per task, in whichever session comes first)."""
    with plan.lock:
        if plan.expected is not None:
            return
        verdict, outcomes = _verify_in(plan, plan.task.reference_files(), session, None)
        if outcomes is None or verdict.status is not VerdictStatus.ok or not outcomes.cases:
            raise BadInput(f"{plan.task.slug}: the reference solution does not verify ({verdict.status.value}: {verdict.reason})")
        plan.order = list(outcomes.cases)
        plan.expected = set(plan.order)


def verify_in_session(task: Task, candidate: Mapping[str, bytes], session: SandboxSession) -> Verdict:
    """Verify one candidate (solution files by name) in an open session, reusing its build
    tree: an unchanged test unit is not recompiled."""
    plan = _plan_for(task)
    if plan.expected is None:
        _learn_expected(plan, session)
    return _verify_in(plan, candidate, session, plan.expected)[0]


def verify(task: Task, candidate_files: Mapping[str, bytes], *, sandbox: Sandbox | str = "auto") -> Verdict:
    """Verify one candidate in a fresh session."""
    box = make_sandbox(sandbox) if isinstance(sandbox, str) else sandbox
    with box.session(f"verify {task.slug}") as session:
        return verify_in_session(task, candidate_files, session)


def _header_key(task: Task, candidate: Mapping[str, bytes]) -> str:
    """What the test unit's object depends on among the solution files: its headers."""
    return hash_files({f: bytes(candidate.get(f, b"")) for f in task.solution_files if not f.endswith((".cpp", ".cc", ".cxx"))})


def _batches(keys: Sequence[str], workers: int) -> list[list[int]]:
    """Candidate indices in work units: those sharing a header stay together (one test-unit
    compile per unit), and a large group is split so every worker gets a share."""
    groups: dict[str, list[int]] = {}
    for i, k in enumerate(keys):
        groups.setdefault(k, []).append(i)
    units = []
    share = max(1, -(-len(keys) // workers))
    for members in groups.values():
        for s in range(0, len(members), share):
            units.append(members[s:s + share])
    return sorted(units, key=len, reverse=True)


def verify_many(task: Task, candidates: Sequence[Mapping[str, bytes]], *, sandbox: Sandbox | str = "auto",
                workers: int | None = None, progress: Callable[[int, Verdict], None] | None = None) -> list[Verdict]:
    """Verify many candidates of one task in parallel, one sandbox session per worker kept
    for the whole batch; candidates with the same header run in the same session one after
    another, so their test unit is compiled once. Verdicts come back in input order."""
    box = make_sandbox(sandbox) if isinstance(sandbox, str) else sandbox
    workers = max(1, min(workers or os.cpu_count() or 1, len(candidates) or 1))
    if not candidates:
        return []
    _plan_for(task)  # bad input surfaces here, before any session starts
    units = _batches([_header_key(task, c) for c in candidates], workers)
    results: list[Verdict | None] = [None] * len(candidates)
    queue_lock = threading.Lock()

    def worker(n: int) -> None:
        with box.session(f"verify {task.slug} #{n}") as session:
            while True:
                with queue_lock:
                    if not units:
                        return
                    unit = units.pop(0)
                for i in unit:
                    results[i] = verify_in_session(task, candidates[i], session)
                    if progress is not None:
                        progress(i, results[i])

    with ThreadPoolExecutor(max_workers=workers) as pool:
        for f in [pool.submit(worker, n) for n in range(workers)]:
            f.result()
    return results  # type: ignore[return-value]  # every slot filled, or a worker raised


def read_candidate(folder: Path, task: Task) -> dict[str, bytes]:
    """A candidate folder's files by relative name (solution files and anything else it
    holds, so edits to protected files are seen and reported as tampering)."""
    if not folder.is_dir():
        raise BadInput(f"{folder}: not a folder")
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*"))
            if p.is_file() and not p.is_symlink() and p.relative_to(folder).parts[0] not in (".meta", ".docs", ".git")}
