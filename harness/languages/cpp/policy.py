"""What decides, before a C++ test binary runs, that a candidate reached for the verdict
instead of earning it: a screen of the preprocessed translation units and a symbol policy
on their objects. A finding makes the round `forged` (TestReport.overruled): failed, with
the reason. Neither reads the candidate's raw text for what it means, so macros, digraphs,
line splices and includes built by macros hide nothing.

Each unit of the test binary is preprocessed again in the sandbox, as the builder, with the
command its object was compiled with (CMake's compile_commands.json) and `-E -dD`; an awk
filter there follows the line markers, which name the file every line and directive comes
from, and keeps only what the candidate's files (the ones the task lets the model write)
contribute: the files they include, the macros they define or undefine, their code. `nm`
lists the symbols each object defines. The preprocessed screen is kept in the harness's
process by the bytes of the candidate's files the unit read, the symbols beside the object
until make rebuilds it, so a warm round pays for the units it recompiled; and the screen
runs in the build's own exec, right after make, so it costs no exec of its own.

The rules (`findings`), each for a reason an honest solution never meets:

- the candidate's files include no test framework header (Catch2's, installed or vendored),
  no test file and nothing of the harness; only each other and system headers;
- they define or undefine no macro that the framework, the test file, the harness or a
  system header of the unit defines, none the test file names, none in the framework's or
  the harness's reserved spellings (CATCH_*, INTERNAL_CATCH_*, HARNESS_*, harness_*);
- their code names neither the framework's namespace (`Catch`) nor the harness's
  (`harness_*`), has no `asm` (which can name any symbol or `.incbin` any file), no
  C linkage (`extern "C"`, which lets a definition replace a C library function), no
  `#pragma` that renames a symbol or restores a macro, and no line directive (which would
  make the markers lie about where code comes from; read from the raw text, where it is
  a directive, never made by a macro);
- the objects compiled from the candidate's own sources define no C-linkage function and
  no variable a library the binary links could also define (`write`, `_exit`, `atexit`,
  `main`, `malloc`, ...), no global operator new or delete, nothing in Catch's, the
  harness's or the C++ runtime's namespaces, and no strong definition in `std` except a
  specialisation for one of the task's own types; weak template and inline instantiations
  are what any use of a template makes, and are allowed. A unit that only includes the
  candidate's headers (the test unit) may define no C-linkage symbol the test file does
  not, and nothing in the harness's namespaces.

A written test suite (test writing) is the candidate's file in its own unit: it must
include the framework and may use its namespace, but the rest holds for it too (no asm,
so no `.incbin` of the solution's sources; no C linkage; no include of anything but system
headers, the framework and the task's own files)."""

from __future__ import annotations

import json
import posixpath
import re
import shlex
import time
import weakref
from dataclasses import dataclass, field, replace
from typing import Iterable, Mapping, Sequence

from ...sandbox.base import ExecResult, Role, SandboxSession
from ..compared import decided_by_the_solution
from .compared_types import operand_types, reference_types, unexpected
from ...task import Task
from ...hashing import sha256_bytes
from .lexer import CPP_KEYWORDS, strip_comments, tokenize

# The framework's and the harness's namespaces and reserved macro spellings.
_RESERVED_NAMESPACES = re.compile(r"^(?:Catch|harness_\w*)$")
_RESERVED_MACROS = re.compile(r"^(?:CATCH_\w*|INTERNAL_CATCH_\w*|HARNESS_\w*|harness_\w*)$")
_ASM = frozenset({"asm", "__asm__", "__asm"})
# What a written suite may name of those: the framework it is written in, and the values
# filling by execution writes into it (fill.py's prelude, `harness_fill::number`).
_WRITTEN_SUITE_NAMES = frozenset({"Catch", "harness_fill"})
# Pragmas that rename a symbol or bring back a macro as it was before the candidate's code.
_PRAGMA = re.compile(r"^#\s*pragma\s+(?:redefine_extname|push_macro|pop_macro)\b")
# A header of a test framework, wherever it lives (the image's, a vendored copy).
_FRAMEWORK_HEADER = re.compile(r"(?:^|/)(?:catch2?|doctest|gtest|boost/test)(?:/|[_.][^/]*$)", re.I)
# A line directive or a GNU line marker in source, after comments are gone and lines spliced:
# `#line`, `# 12 "file" 1`, spelled with `#`, the `%:` digraph or the `??=` trigraph.
_LINE_DIRECTIVE = re.compile(r"^\s*(?:#|%:|\?\?=)\s*(?:line\b|\d)", re.M)
# A line inside a (raw) string literal that reads as a directive, a line marker or the screen's own line.
_DIRECTIVE_IN_LITERAL = re.compile(r"\n[ \t]*(?:#|%:|\?\?=|@@)")
_LINE_NUMBER_ONLY = re.compile(r"^\s*#\s*line\s+\d+\s*$")
# C++'s runtime namespaces: a definition there replaces part of the runtime.
_RUNTIME = frozenset({"std", "__gnu_cxx", "__cxxabiv1", "abi", "__gnu_debug", "__pstl"})
# Operator names, whose spelling holds brackets and spaces that are not the name's structure.
_OPERATOR = re.compile(r"\boperator(?:\s*(?:<<=|>>=|<=>|<<|>>|<=|>=|->\*?|<|>|\(\)|\[\])|\s+(?:new|delete)(?:\[\])?"
                       r"|\s+[^(]+?(?=\())")
# The placement forms of operator new and delete, which <new> defines inline.
_PLACEMENT = frozenset({"_ZnwmPv", "_ZnamPv", "_ZdlPvS_", "_ZdaPvS_"})
# nm's letters for symbols that are definitions (-g: global or weak only).
_CODE_TYPES = frozenset("TWi")
# The words that open a symbol name that is not a function or variable of its own.
_SPECIAL = re.compile(r"^(?:(?:vtable|VTT|typeinfo name|typeinfo|guard variable|construction vtable|TLS init function"
                      r"|TLS wrapper function|reference temporary #\d+) for |(?:non-virtual|virtual|covariant return) thunk to )")


@dataclass(frozen=True)
class Unit:
    """One compile of the test binary: its source, its object, and the command that
    preprocesses it as it was compiled."""

    source: str       # absolute, in the sandbox
    object: str       # absolute, in the sandbox
    preprocess: tuple[str, ...]


def units_from_compile_commands(text: str, target_dir: str) -> list[Unit]:
    """The units CMake compiles for the exercise's target (its objects are under the
    target's own folder), each with its compile command turned into `-E -dD` to stdout."""
    units: list[Unit] = []
    for entry in json.loads(text):
        argv = entry["arguments"] if "arguments" in entry else shlex.split(entry["command"])
        out, keep, skip = None, [], False
        for i, arg in enumerate(argv):
            if skip:
                skip = False
            elif arg in ("-o", "-MT", "-MF", "-MQ"):
                skip = True
                out = argv[i + 1] if arg == "-o" and i + 1 < len(argv) else out
            elif arg not in ("-c", "-MD", "-MMD") and not (len(arg) > 3 and arg[:3] in ("-MF", "-MT", "-MQ")):
                keep.append(arg)
        if out is None:
            continue
        obj = posixpath.normpath(posixpath.join(entry["directory"], out))
        if f"/{target_dir}/" not in obj:
            continue
        units.append(Unit(entry["file"], obj, (*keep, "-E", "-dD")))
    return units


# The filter the preprocessed unit goes through in the sandbox. It keeps the identity of
# each file on the include stack as the file was entered (flag 1) and left (flag 2), so a
# marker that only renames (a line directive) changes nothing it attributes; it prints:
#   I <parent> <child> <system|user>   a file the candidate's file includes, one of its files
#                                      included, or a header that may be the framework's
#   L <file> <name>                    a line directive in the candidate's file naming another
#   D|X <file> <macro>                 a macro the candidate's file defines or undefines
#   C <file> <line>                    a line of the candidate's code, or a pragma
#   O <macro>                          a macro the candidate defines that another file defines too
#   F                                  the unit did not preprocess
_AWK = r"""
function norm(p,   n, parts, out, k, i) {
    n = split(p, parts, "/"); k = 0
    for (i = 1; i <= n; i++) {
        if (parts[i] == "" || parts[i] == ".") continue
        if (parts[i] == ".." && k > 0 && out[k] != "..") { k--; continue }
        out[++k] = parts[i]
    }
    p2 = (substr(p, 1, 1) == "/") ? "/" : ""
    for (i = 1; i <= k; i++) p2 = p2 (i > 1 ? "/" : "") out[i]
    return p2
}
BEGIN { n = split(ENVIRON["HARNESS_CANDIDATES"], c, "\n"); for (i = 1; i <= n; i++) cand[c[i]] = 1; d = 0 }
/^@@harness-pp-failed$/ { print "F"; next }
/^# [0-9]+ "/ {
    line = $0; sub(/^# [0-9]+ "/, "", line)
    match(line, /"[ 0-9]*$/); path = substr(line, 1, RSTART - 1); flags = " " substr(line, RSTART + 1) " "
    if (!have) { main = norm(path); id[0] = main; have = 1; next }
    if (flags ~ / 1 /) {
        parent = id[d]; id[++d] = norm(path)
        if ((parent in cand) || (id[d] in cand) || tolower(id[d]) ~ /(^|\/)catch/)
            print "I\t" parent "\t" id[d] "\t" (flags ~ / 3 / ? "system" : "user")
        next
    }
    if (flags ~ / 2 /) { if (d > 0) d--; next }
    if (!started) {
        if (substr(path, 1, 1) == "<") id[d] = path
        else if (d == 0 && norm(path) == main) { id[0] = main; started = 1 }
        next
    }
    if ((id[d] in cand) && norm(path) != id[d]) print "L\t" id[d] "\t" path
    next
}
/^#(define|undef) / {
    name = $2; sub(/\(.*/, "", name)
    if (id[d] in cand) { print ($1 == "#define" ? "D" : "X") "\t" id[d] "\t" name; mine[name] = 1 }
    else other[name] = 1
    next
}
/[^ \t]/ { if (id[d] in cand) print "C\t" id[d] "\t" $0 }
END { for (m in mine) if (m in other) print "O\t" m }
"""

_UNIT_LINE = "@@harness-unit "


_NM_LINE = "@@harness-nm"


def screen_script(units: Sequence[Unit], candidates: Iterable[str], known: Iterable[str] = ()) -> str:
    """The builder's shell command that prints, for every unit after a line naming its
    source, what the candidate contributes to it (unless its source is in `known`: the
    harness has that from an earlier round with the same inputs), then the symbols its
    object defines."""
    env = "HARNESS_CANDIDATES=" + shlex.quote("\n".join(sorted(candidates)))
    awk = shlex.quote(_AWK)
    known = set(known)
    steps = []
    for unit in units:
        o = shlex.quote(unit.object)
        step = f"echo {shlex.quote(_UNIT_LINE + unit.source)}; "
        if unit.source not in known:
            step += f"{{ {shlex.join(unit.preprocess)} 2>/dev/null || echo @@harness-pp-failed; }} | {env} awk {awk}; "
        # The symbols are kept beside the object (the builder's, like it) until make rebuilds it.
        nm = shlex.quote(unit.object + ".harness-nm")
        steps.append(step + f"echo {_NM_LINE}; if [ ! -f {o} ]; then echo F; else [ {nm} -nt {o} ] || "
                            f"{{ nm -P -g --defined-only --no-sort {o} | sed 's/^/N\t/'; "
                            f"nm -P -C -g --defined-only --no-sort {o} | sed 's/^/M\t/'; }} >{nm}; cat {nm}; fi")
    return "; ".join(steps)


def split_units(output: str) -> dict[str, tuple[str, str]]:
    """A screen's output by unit source: (what the preprocessed unit showed, the symbols).
    Only whole lines are the script's own: every line made of what the candidate wrote
    starts with the filter's letter and a tab (nm's through sed too), so a string literal
    that spells a marker (a raw one can end a line) opens no unit and ends no section."""
    pre: dict[str, list[str]] = {}
    nm: dict[str, list[str]] = {}
    source: str | None = None  # the unit whose lines follow; None after a repeated one
    for line in output.splitlines(keepends=True):
        bare = line.rstrip("\n")
        if bare.startswith(_UNIT_LINE):
            source = bare[len(_UNIT_LINE):]
            if source in pre:  # the script prints each unit once
                pre[source] = ["F\n"]
                nm.pop(source, None)
                source = None
                continue
            pre[source] = []
        elif source is not None and bare == _NM_LINE and source not in nm:
            nm[source] = []
        elif source is not None:
            (nm[source] if source in nm else pre[source]).append(line)
    return {src: ("".join(lines), "".join(nm[src]) if src in nm else "F\n") for src, lines in pre.items()}


@dataclass
class UnitScreen:
    """What one unit's screen found: the candidate's contributions to it, and the symbols
    its object defines (raw name, nm's type letter, demangled name)."""

    source: str
    includes: list[tuple[str, str, bool]] = field(default_factory=list)  # (parent, child, system)
    renames: list[tuple[str, str]] = field(default_factory=list)
    macros: list[tuple[str, str, bool]] = field(default_factory=list)   # (file, name, defined)
    shared_macros: set[str] = field(default_factory=set)
    code: dict[str, list[str]] = field(default_factory=dict)
    symbols: list[tuple[str, str, str]] = field(default_factory=list)
    failed: bool = False


def parse_screen(output: str) -> list[UnitScreen]:
    units: list[UnitScreen] = []
    raw: list[tuple[str, str]] = []
    demangled: list[str] = []

    def close() -> None:
        if units:
            units[-1].symbols = [(name, kind, demangled[i] if i < len(demangled) else name)
                                 for i, (name, kind) in enumerate(raw)]

    for line in output.split("\n"):
        if line.startswith(_UNIT_LINE):
            close()
            raw, demangled = [], []
            units.append(UnitScreen(line[len(_UNIT_LINE):]))
            continue
        if not units or not line:
            continue
        unit = units[-1]
        kind, _, rest = line.partition("\t")
        parts = rest.split("\t")
        if kind == "F":
            unit.failed = True
        elif kind == "I" and len(parts) == 3:
            unit.includes.append((parts[0], parts[1], parts[2] == "system"))
        elif kind == "L" and len(parts) == 2:
            unit.renames.append((parts[0], parts[1]))
        elif kind in "DX" and len(parts) == 2:
            unit.macros.append((parts[0], parts[1], kind == "D"))
        elif kind == "O":
            unit.shared_macros.add(rest)
        elif kind == "C" and len(parts) >= 2:
            unit.code.setdefault(parts[0], []).append("\t".join(parts[1:]))
        elif kind in "NM":
            # nm -P: "name type value [size]"; a demangled name has spaces of its own.
            fields = rest.rsplit(" ", 3)
            while len(fields) > 2 and not re.fullmatch(r"[A-Za-z?]", fields[1]):
                fields = [" ".join(fields[:2]), *fields[2:]]
            if kind == "N":
                raw.append((fields[0], fields[1] if len(fields) > 1 else "?"))
            else:
                demangled.append(_nm_name(rest))
    close()
    return units


def _nm_name(rest: str) -> str:
    """The name of an `nm -P -C` line: everything before the type letter and the
    address (and size) at its end."""
    m = re.match(r"^(.*) [A-Za-z?] [0-9a-fA-F]+(?: [0-9a-fA-F]+)?$", rest)
    return m.group(1) if m else rest


@dataclass(frozen=True)
class Candidate:
    """Which files are the candidate's, and what the test file says, for one round."""

    root: str                    # the staged task folder in the sandbox
    files: frozenset[str]        # absolute paths of the candidate's files
    task_files: frozenset[str]   # absolute paths of every staged file
    test_files: frozenset[str]   # absolute paths of the task's test files
    test_names: frozenset[str]   # identifiers the test files use
    namespaces: frozenset[str]   # the namespaces the task's stub and reference declare
    framework_names: frozenset[str] = frozenset()  # every identifier of the framework's headers
    writes_tests: bool = False   # the candidate's file is the test file (test writing)


def candidate(root: str, files: Mapping[str, bytes], candidate_files: Iterable[str], test_files: Iterable[str],
              declared: Iterable[bytes], writes_tests: bool = False) -> Candidate:
    tests = list(test_files)
    names = set()
    for rel in tests:
        if rel in files and not writes_tests:
            names |= {t.text for t in tokenize(files[rel].decode(errors="replace"), directives=False)
                      if t.kind == "ident"}
    spaces = set()
    for text in declared:
        toks = tokenize(text.decode(errors="replace"))
        spaces |= {toks[i + 1].text for i, t in enumerate(toks[:-1])
                   if t.text == "namespace" and toks[i + 1].kind == "ident"}
    at = lambda rel: posixpath.normpath(f"{root}/{rel}")  # noqa: E731
    return Candidate(root, frozenset(at(r) for r in candidate_files), frozenset(at(r) for r in files),
                     frozenset(at(r) for r in tests), frozenset(names), frozenset(spaces), writes_tests=writes_tests)


def raw_findings(files: Mapping[str, bytes]) -> list[str]:
    """What only the raw text shows: line directives, which the preprocessor obeys before
    any marker is written, and questions to the file system (`__has_include`)."""
    found = []
    for rel in sorted(files):
        text = strip_comments(files[rel].decode(errors="replace").replace("\r\n", "\n"))
        text = re.sub(r"\\\n", "", text)
        # A line number alone (`#line 1`, what filling by execution writes after its prelude)
        # renames no file, so it can attribute no code to another.
        if any(not _LINE_NUMBER_ONLY.match(m.group(0) + text[m.end():].split("\n", 1)[0])
               for m in _LINE_DIRECTIVE.finditer(text)):
            found.append(f"{rel}: a line directive, which makes the compiler misname where code comes from")
        if any(t.kind == "string" and _DIRECTIVE_IN_LITERAL.search(t.text) for t in tokenize(files[rel].decode(errors="replace"))):
            # A raw string's lines reach the preprocessed unit as they are: one that starts
            # like a line marker or a line of the screen's own would be read as one.
            found.append(f"{rel}: a string literal with a line that starts like a directive or a line marker")
        if re.search(r"\b__has_include(?:_next)?\b", text):
            # What it asks depends on files outside the candidate's: the screen of a unit
            # with the same files as before would no longer be the same.
            found.append(f"{rel}: __has_include, which asks the build machine rather than the sources")
    return found


def findings(units: Sequence[UnitScreen], who: Candidate) -> list[str]:
    """Every reason the units' screens give to overrule the round, in unit order."""
    found: list[str] = []
    rel = lambda p: p[len(who.root) + 1:] if p.startswith(who.root + "/") else p  # noqa: E731
    for unit in units:
        own = unit.source in who.files
        if not own and not any(child in who.files for _, child, _ in unit.includes):
            continue  # a unit the candidate's files take no part in (Catch2's own main)
        if unit.failed:
            found.append(f"{rel(unit.source)}: the unit could not be preprocessed as it was compiled")
        for parent, child, system in unit.includes:
            if parent not in who.files or child in who.files:
                continue
            framework = bool(_FRAMEWORK_HEADER.search(child))
            if who.writes_tests and (framework or system or child in who.task_files and child not in who.test_files):
                continue
            if framework or child in who.test_files or not (system or child in who.task_files):
                found.append(f"{rel(parent)} includes {rel(child)}: only the solution's own files and system headers may be")
        for file, name in unit.renames:
            found.append(f"{rel(file)}: a line directive names it {name}")
        if not who.writes_tests:
            for file, name, defined in unit.macros:
                if (name in unit.shared_macros or name in who.test_names or name in who.framework_names
                        or _RESERVED_MACROS.match(name) or name in CPP_KEYWORDS):
                    verb = "defines" if defined else "undefines"
                    found.append(f"{rel(file)} {verb} {name}, a macro the test framework, the test file or the harness uses")
        for file, lines in unit.code.items():
            found += [f"{rel(file)}: {why}" for why in _code_findings(lines, who.writes_tests)]
        found += [f"{rel(unit.source)}: {why}" for why in _symbol_findings(unit, who, own and not who.writes_tests)]
    return list(dict.fromkeys(found))


def _code_findings(lines: list[str], writes_tests: bool) -> list[str]:
    found = []
    text = "\n".join(lines)
    tokens = tokenize(text)
    for i, tok in enumerate(tokens):
        if tok.kind == "pp" and _PRAGMA.match(tok.text):
            found.append(f"a pragma that renames a symbol or restores a macro: {tok.text[:80]}")
        elif tok.kind != "ident":
            continue
        elif tok.text in _ASM:
            found.append("assembly, which can define any symbol or embed any file")
        elif _RESERVED_NAMESPACES.match(tok.text) and not (writes_tests and tok.text in _WRITTEN_SUITE_NAMES):
            found.append(f"uses the name {tok.text}, which belongs to the test framework or the harness")
        elif tok.text == "extern" and i + 1 < len(tokens) and tokens[i + 1].kind == "string" \
                and tokens[i + 1].text != '"C++"':
            found.append(f"declares {tokens[i + 1].text} linkage, which lets a definition replace a library's")
        elif tok.text == "namespace" and i + 1 < len(tokens) and tokens[i + 1].text in _RUNTIME \
                and not (i > 0 and tokens[i - 1].text == "using") and not _only_specialisations(tokens, i + 2):
            found.append(f"declares something of its own in namespace {tokens[i + 1].text}, where a type of the "
                         "solution's would pass for the library's; only specialisations (std::hash<T>) belong there")
    return list(dict.fromkeys(found))


def _only_specialisations(tokens: list, start: int) -> bool:
    """Whether the namespace body opened at or after `start` holds only explicit
    specialisations (`template <> ...`), each declaration at its top level."""
    i = start
    while i < len(tokens) and tokens[i].text != "{":
        if tokens[i].text in (";", "="):  # a namespace alias or a stray declaration
            return True
        i += 1
    depth, expect = 0, True
    for j in range(i + 1, len(tokens)):
        text = tokens[j].text
        if depth == 0 and expect:
            if text == "}":
                return True
            if text == ";":  # the end of the declaration a class body closed
                continue
            if not (text == "template" and j + 2 < len(tokens) and tokens[j + 1].text == "<"
                    and tokens[j + 2].text == ">"):
                return False
            expect = False
        if text in "{([":
            depth += 1
        elif text in "})]":
            depth -= 1
            if depth < 0:
                return True
            if depth == 0 and text == "}":
                expect = True
        elif text == ";" and depth == 0:
            expect = True
    return True


def owner(demangled: str) -> str:
    """The outermost namespace or class a demangled symbol belongs to (`std` for
    `void std::sort<...>(...)`), or its name when it has none: the first part of its
    qualified name, past a template function's return type, outside template arguments."""
    text = _OPERATOR.sub("operator@", _SPECIAL.sub("", demangled))
    depth, cut, start = 0, len(text), 0
    for i, ch in enumerate(text):
        if ch == "(" and depth == 0:
            cut = i
            break
        if ch in "<(":
            depth += 1
        elif ch in ">)":
            depth -= 1
        elif ch == " " and depth == 0:
            start = i + 1
    return re.split(r"::|<", text[start:cut], maxsplit=1)[0]


def _symbol_findings(unit: UnitScreen, who: Candidate, strict: bool) -> list[str]:
    """`strict` for an object compiled from the candidate's own source; else only what no
    header of a solution can put into a unit that includes it."""
    found = []
    for name, kind, shown in unit.symbols:
        weak = kind in "WVu"
        if name.startswith(("_Znw", "_Zna", "_Zdl", "_Zda")):
            if name not in _PLACEMENT:
                found.append(f"replaces the global {shown}")
        elif not name.startswith("_Z"):
            if "." in name:
                continue  # the compiler's own (DW.ref.__gxx_personality_v0): no C name has a dot
            if strict or kind in _CODE_TYPES:
                what = "function" if kind in _CODE_TYPES else "variable"
                found.append(f"defines {name}, a {what} with C linkage (it could replace a library's)")
        elif shown == name:
            found.append(f"defines {name}, a name nm cannot demangle (one an asm label or the assembler chose)")
        else:
            space = owner(shown)
            if space.startswith("harness_") and not (who.writes_tests and space in _WRITTEN_SUITE_NAMES) \
                    or strict and space == "Catch":
                found.append(f"defines {shown} in the test framework's or the harness's namespace")
            elif strict and not weak and space in _RUNTIME and not any(f"{ns}::" in shown for ns in who.namespaces):
                found.append(f"defines {shown} in the C++ runtime's namespace")
    return found


@dataclass(frozen=True)
class ScreenPlan:
    """A round's screen, made before its build, and the builder's shell command that
    starts it in the build's own exec, right after make (testrun.py): one exec less per
    round. With the units known from an earlier build of the same task content, the
    command prints the screen of every unit the harness does not have yet (`hits`);
    without them, it prints the tree's compile commands, and the screen follows in an
    exec of its own."""

    script: str
    units: tuple[Unit, ...] = ()
    who: Candidate | None = None
    hits: Mapping[str, str] = field(default_factory=dict)

    @property
    def reads_units(self) -> bool:
        return self.who is None


def _mine(task: Task, files: Mapping[str, bytes]) -> list[str]:
    written = tuple(task.written_tests)
    return [rel for rel in files if rel not in task.protected_files or rel in written]


def _unit_key(task: Task, files: Mapping[str, bytes], unit: Unit) -> tuple:
    return (unit.source, unit.preprocess, task.content_hash, tuple(sorted(files)))


def plan_screen(task: Task, files: Mapping[str, bytes], session: SandboxSession) -> ScreenPlan:
    """The screen of the round about to be built from its staged `files`."""
    units = cached_units(session, task.exercise, task.content_hash)
    if units is None:
        return ScreenPlan(shlex.join(["cat", f"{session.build_root}/{task.exercise}/compile_commands.json"]))
    return _plan(task, files, session, units)


def _plan(task: Task, files: Mapping[str, bytes], session: SandboxSession, units: Sequence[Unit]) -> ScreenPlan:
    root = f"{session.src_root}/{task.exercise}"
    who = candidate(root, files, _mine(task, files), task.test_files,
                    [*task.stub_files().values(), *task.reference_files().values()],
                    writes_tests=bool(task.written_tests))
    hits = {u.source: pre for u in units if (pre := recall(session, _unit_key(task, files, u), files, root)) is not None}
    return ScreenPlan(screen_script(units, who.files, hits), tuple(units), who, hits)


def judge_build(task: Task, files: Mapping[str, bytes], session: SandboxSession, plan: ScreenPlan | None = None,
                started: ExecResult | None = None) -> tuple[list[str], float]:
    """Why the round just built (its staged `files`) is forged, empty when nothing is
    found, and the seconds it took; run after a build that succeeded, before the binary
    runs. The candidate's files are those the task does not protect, and a written test
    file (test writing). `started` is what `plan`'s command printed in the build's exec;
    what is missing of it (a build log that filled the exec's output) runs in an exec of
    its own."""
    found = raw_findings({rel: files[rel] for rel in _mine(task, files)})
    plan = plan or plan_screen(task, files, session)
    seconds = 0.0
    if plan.reads_units:
        got = started if started is not None and not started.truncated else session.exec(
            ["sh", "-c", plan.script], role=Role.builder, timeout_s=30, cap=4 << 20)
        seconds += got.seconds
        try:
            # In the build's exec the status is make's: what cat could not read is no JSON.
            units = units_from_compile_commands(got.output.decode(errors="replace"), f"CMakeFiles/{task.exercise}.dir")
        except (ValueError, KeyError, TypeError, IndexError):
            units = None
        if got.exit_code != 0 or got.truncated or units is None:
            return [*found, "the build's compile commands could not be read, so nothing of it could be screened"], seconds
        keep_units(session, task.exercise, task.content_hash, units)
        plan, started = _plan(task, files, session, units), None
    assert plan.who is not None
    screened = started
    if screened is None or screened.truncated:
        screened = session.exec(["sh", "-c", plan.script], role=Role.builder, timeout_s=session.limits.build_timeout_s,
                                cap=16 << 20)
        seconds += screened.seconds
    if screened.timed_out or screened.exit_code is None:
        return [*found, "the screen of the preprocessed units timed out"], seconds
    if screened.truncated:
        return [*found, "the screen of the preprocessed units printed more than 16 MiB"], seconds
    root = f"{session.src_root}/{task.exercise}"
    parts = split_units(screened.output.decode(errors="replace"))
    text = []
    for unit in plan.units:
        pre, nm = parts.get(unit.source, ("F\n", ""))
        if unit.source in plan.hits:
            pre = plan.hits[unit.source]
        else:
            remember(session, _unit_key(task, files, unit), _deps(pre, unit, plan.who, files, root), pre)
        text.append(f"{_UNIT_LINE}{unit.source}\n{pre}{nm}")
    screens = parse_screen("".join(text))
    headers = sorted({child for u in screens for _, child, _ in u.includes if _FRAMEWORK_HEADER.search(child)})
    spelled, took = framework_names(session, headers, files, root)
    found += findings(screens, replace(plan.who, framework_names=spelled))
    if not task.written_tests:
        compared, spent = _compared_findings(task, files, session, plan.units, screens)
        found += compared
        took += spent
    return found, seconds + took


def _compared_findings(task: Task, files: Mapping[str, bytes], session: SandboxSession, units: Sequence[Unit],
                       screens: Sequence[UnitScreen]) -> tuple[list[str], float]:
    """The comparisons of the task's own tests that the solution decides (compared_types.py)."""
    root = f"{session.src_root}/{task.exercise}"
    tests = {f"{root}/{rel}" for rel in task.test_files}
    found: list[str] = []
    started = time.monotonic()
    for unit, screen in zip(units, screens):
        if unit.source not in tests:
            continue
        mine = operand_types("\n".join(demangled for _, _, demangled in screen.symbols))
        compile_argv = [a for a in unit.preprocess if a not in ("-E", "-dD")]
        reference = reference_types(task, session, compile_argv, unit.source, files, mine)
        if isinstance(reference, str):
            found.append(reference)
            continue
        for operand in unexpected(mine, set(reference)):
            found.append(decided_by_the_solution(operand, reference))
    return found, time.monotonic() - started


def framework_names(session: SandboxSession, headers: Sequence[str], files: Mapping[str, bytes],
                    root: str) -> tuple[frozenset[str], float]:
    """Every identifier the framework's headers spell (a macro of that name would rewrite
    the framework's own code after the candidate's header): a vendored header's read from
    the task's bytes, an installed one's once per sandbox (its image's)."""
    staged = {posixpath.normpath(f"{root}/{r}"): r for r in files}
    names: set[str] = set()
    for h in headers:
        if h in staged:
            data = files[staged[h]]
            digest = sha256_bytes(data)
            if digest not in _VENDORED_NAMES:
                while len(_VENDORED_NAMES) >= 16:
                    _VENDORED_NAMES.pop(next(iter(_VENDORED_NAMES)))
                _VENDORED_NAMES[digest] = frozenset(re.findall(r"[A-Za-z_]\w*", data.decode(errors="replace")))
            names |= _VENDORED_NAMES[digest]
    known = _FRAMEWORK_NAMES.setdefault(session.sandbox, {})
    missing = [h for h in headers if h not in staged and h not in known]
    seconds = 0.0
    if missing:
        script = "; ".join(f"echo {shlex.quote(_UNIT_LINE + h)}; tr -cs 'A-Za-z0-9_' '\\n' < {shlex.quote(h)} | sort -u"
                           for h in missing)
        got = session.exec(["sh", "-c", script], role=Role.builder, timeout_s=60, cap=16 << 20)
        seconds = got.seconds
        current = None
        for line in got.output.decode(errors="replace").split("\n"):
            if line.startswith(_UNIT_LINE):
                current = known.setdefault(line[len(_UNIT_LINE):], set())
            elif current is not None and re.fullmatch(r"[A-Za-z_]\w*", line):
                current.add(line)
    return frozenset(names.union(*(known.get(h, set()) for h in headers if h not in staged))), seconds


def _deps(pre: str, unit: Unit, who: Candidate, files: Mapping[str, bytes], root: str) -> dict[str, str]:
    """The candidate's files a unit read (its source, if the candidate's, and every one
    it included), each with the hash of its content: what its screen depends on besides
    the task, the file names and the command."""
    read = {unit.source} & who.files
    for line in pre.split("\n"):
        kind, _, rest = line.partition("\t")
        if kind == "I":
            read |= set(rest.split("\t")[:2]) & who.files
    rel = {posixpath.normpath(f"{root}/{r}"): r for r in files}
    return {path: sha256_bytes(files[rel[path]]) for path in read if path in rel}


# What a unit's preprocessed screen showed, by the sandbox it ran in, the unit, its command,
# the task, the staged names, and the contents of the candidate's files it read: a round
# whose unit reads the same bytes (a warm round that changed another unit, every gold round
# after the first) is not preprocessed again. The image's system headers are the sandbox's.
_SEEN: "weakref.WeakKeyDictionary[object, dict[tuple, list[tuple[dict[str, str], str]]]]" = weakref.WeakKeyDictionary()
_SEEN_PER_KEY = 8
_SEEN_KEYS = 512


def recall(session: SandboxSession, key: tuple, files: Mapping[str, bytes], root: str) -> str | None:
    for deps, pre in _SEEN.get(session.sandbox, {}).get(key, []):
        rel = {posixpath.normpath(f"{root}/{r}"): r for r in files}
        if all(p in rel and sha256_bytes(files[rel[p]]) == h for p, h in deps.items()):
            return pre
    return None


def remember(session: SandboxSession, key: tuple, deps: dict[str, str], pre: str) -> None:
    if "F" in pre.split("\n"):
        return  # a unit that did not preprocess is tried again
    seen = _SEEN.setdefault(session.sandbox, {})
    entries = [e for e in seen.pop(key, []) if e[0] != deps]
    seen[key] = [(deps, pre), *entries][:_SEEN_PER_KEY]
    while len(seen) > _SEEN_KEYS:
        seen.pop(next(iter(seen)))


# Each sandbox's units per build tree and content: CMake writes the same commands each time.
_FRAMEWORK_NAMES: "weakref.WeakKeyDictionary[object, dict[str, set[str]]]" = weakref.WeakKeyDictionary()
_VENDORED_NAMES: dict[str, frozenset[str]] = {}
_UNITS: "weakref.WeakKeyDictionary[object, dict[tuple, list[Unit]]]" = weakref.WeakKeyDictionary()


def _units_key(session: SandboxSession, tree: str, content: str) -> tuple:
    # What CMake's compile commands depend on besides the task: where the session stages and
    # builds, and which test main and launcher it configures with.
    return (tree, content, session.src_root, session.build_root, session.test_main, session.catch2_with_main,
            session.cxx_launcher)


def cached_units(session: SandboxSession, tree: str, content: str) -> list[Unit] | None:
    return _UNITS.get(session.sandbox, {}).get(_units_key(session, tree, content))


def keep_units(session: SandboxSession, tree: str, content: str, units: list[Unit]) -> None:
    known = _UNITS.setdefault(session.sandbox, {})
    while len(known) >= _SEEN_KEYS:
        known.pop(next(iter(known)))
    known[_units_key(session, tree, content)] = units

