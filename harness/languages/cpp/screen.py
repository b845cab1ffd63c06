"""A static screen of a candidate's raw source files: it flags what no honest solution of an
exercise needs and what a program gaming its tests would reach for (redefining
test-framework names or `main`, including test files, pragmas that silence `-Werror`,
reading the environment or `/proc`, code that runs before `main`, process control, raw
file descriptors). A flag changes no verdict: it is a note for a reader of the trial or a
trainer, not a defence (a macro or a digraph hides anything from a regex). What decides is
elsewhere: in `harness test`, the screen of the preprocessed units and the symbol policy
on their objects (policy.py) make a round `forged`; in the verifier, the values are judged
in the harness's own process (harness/verify.py)."""

from __future__ import annotations

import re
from typing import Iterable, Mapping

from .lexer import strip_comments
from ...records import ScreenFlag

# Catch2's public and internal macro names, and `main`.
_FRAMEWORK_NAMES = (
    r"(?:REQUIRE\w*|CHECK\w*|TEST_CASE\w*|TEMPLATE_\w+|SECTION|DYNAMIC_SECTION|SCENARIO\w*|GIVEN|WHEN|THEN"
    r"|AND_(?:GIVEN|WHEN|THEN)|FAIL\w*|SUCCEED|INFO|UNSCOPED_INFO|WARN|CAPTURE|STATIC_REQUIRE\w*"
    r"|METHOD_AS_TEST_CASE|REGISTER_TEST_CASE|ANON_TEST_CASE|CATCH_\w+|INTERNAL_CATCH_\w+|main)"
)
_HASH = r"(?:#|%:)"  # `%:` is the digraph of `#`
_CALL = r"(?<![\w.>:])(?:::\s*|std\s*::\s*)?"  # a free function, not a member like `file.open(`

RULES: tuple[tuple[str, str, re.Pattern[str]], ...] = tuple(
    (rule, why, re.compile(pattern))
    for rule, why, pattern in (
        ("framework-name", "defines or undefines a test-framework name or main",
         rf"^\s*{_HASH}\s*(?:define|undef)\s+{_FRAMEWORK_NAMES}\b"),
        ("framework-name", "defines main or touches the test framework's or the harness's internals",
         r"\bint\s+main\s*\(|\bnamespace\s+Catch\b|\bCatch\s*::|\bharness_read_token\b"),
        ("test-include", "includes the test framework, a test file or a source file",
         rf"^\s*{_HASH}\s*include(?:_next)?\s*[<\"][^>\"]*(?:catch|_test\.|\.c(?:pp|c|xx)\b)[^>\"]*[>\"]"),
        ("warning-pragma", "a pragma or line directive that silences warnings or hides where code comes from",
         rf"^\s*{_HASH}\s*(?:pragma\s+(?:GCC|clang)\s+(?:diagnostic|system_header|poison)"
         rf"|pragma\s+(?:push_macro|pop_macro)|line\b|\d)|\b_Pragma\s*\("),
        ("environment", "reads the environment, /proc or the process's file descriptors by name",
         r"\b(?:getenv|secure_getenv|environ|__environ|setenv|putenv|unsetenv)\b|/proc\b|/dev/(?:fd|stdin)\b"),
        ("pre-main", "code placed to run before main or in special sections",
         r"__attribute__\s*\(\(\s*(?:constructor|destructor|section|ifunc|init_priority)"
         r"|\[\[\s*gnu\s*::\s*(?:constructor|destructor|section|ifunc|init_priority)|\.(?:pre)?init_array"),
        ("process-control", "ends, forks, signals or re-routes the process",
         rf"{_CALL}\b(?:_exit|_Exit|exit|quick_exit|at_quick_exit|atexit|abort|fork|vfork|clone|execv\w*|execl\w*"
         r"|posix_spawn\w*|system|popen|kill|raise|ptrace|setsid|signal|sigaction|set_terminate|set_unexpected)\s*\("),
        ("system-header", "includes an operating-system interface a solution never needs",
         rf"^\s*{_HASH}\s*include\s*<(?:unistd|fcntl|dlfcn|dirent|poll|signal|csignal|syscall|link|elf)\.?h?>"
         rf"|^\s*{_HASH}\s*include\s*<sys/"),
        # Names like read or open are also honest member functions; only the global ones count.
        ("raw-io", "raw system calls, file descriptors or standard input",
         r"(?<![\w>])::\s*(?:read|write|pread|pwrite|dup|close|open|pipe|poll|select)\s*\("
         rf"|{_CALL}\b(?:dup2|dup3|openat|pipe2|mmap|mprotect|syscall|dlsym|dlopen|ioctl|fcntl|fdopen|freopen)\s*\("
         r"|\bstd\s*::\s*cin\b|\bstdin\b|\b(?:scanf|getchar)\s*\("),
        ("inline-asm", "inline assembly", r"\b(?:asm|__asm__|__asm)\b"),
        ("extern-c", "C linkage, which lets a definition replace a C library function",
         r"\bextern\s*\"C\""),
    )
)


def logical_lines(text: str) -> Iterable[tuple[int, str]]:
    """Lines after backslash-newline splicing (translation phase 2), each numbered by the
    physical line it starts on: `#def\\<newline>ine` is still a #define."""
    start = 1
    parts: list[str] = []
    for number, line in enumerate(text.split("\n"), 1):
        if not parts:
            start = number
        if line.endswith("\\"):
            parts.append(line[:-1])
            continue
        parts.append(line)
        yield start, "".join(parts)
        parts = []
    if parts:
        yield start, "".join(parts)


def screen(files: Mapping[str, bytes]) -> list[ScreenFlag]:
    """Flags for the given source files, in file and line order; one flag per rule and
    line."""
    flags: list[ScreenFlag] = []
    for name in sorted(files):
        text = strip_comments(files[name].decode(errors="replace").replace("\r\n", "\n"))
        for number, line in logical_lines(text):
            seen: set[str] = set()
            for rule, why, pattern in RULES:
                if rule not in seen and pattern.search(line):
                    seen.add(rule)
                    flags.append(ScreenFlag(rule=rule, why=why, file=name, line=number, text=line.strip()[:200]))
    return flags
