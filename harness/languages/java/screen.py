"""The screen of a candidate's Java files, and it decides: a file it refuses is never compiled.

The tests and the candidate run in one JVM, so whatever the candidate's code can reach, the
verdict can be reached by too. The verdict is the harness's launcher's (verdict.py): it
reads its token from standard input and writes to descriptor 3 before and after the
candidate's classes run, and ends the process itself. A candidate could reach it only by
ending the process (System.exit, Runtime), opening a file or a descriptor (java.io,
java.nio, /proc through any API that opens a path), reading another's memory (reflection,
method handles, Unsafe, class loaders, native code), or reaching into JUnit or AssertJ
(whose classes share the JVM). So the screen takes a file only if:

- every qualified name (an import, or a name written out in code) is of a package on the
  short list below: java.util and its pure subpackages, java.math, java.text, java.time,
  java.lang's classes, `java.lang.reflect.Array` (a reference makes generic arrays with
  it), java.awt.Point, org.json (rest-api's library);
- no word names what ends the process, opens a path, loads or inspects classes, or reaches
  a method by name (`Runtime`, `ProcessBuilder`, `ClassLoader`, `forName`,
  `getDeclaredMethod`, `getResourceAsStream`, `Formatter` (it opens a file by name), ...);
- `System` is used only for its streams and pure helpers (`System.out`, `System.err`,
  `arraycopy`, `nanoTime`, ...), never setOut, exit, getenv, load or the security manager;
- it declares no package (the tests are in the default package, and so must the classes
  they use be) and no native method.

Threads are allowed: with nothing above, a thread can do nothing the test's own call could
not, and the launcher's halt ends whatever it leaves running.

A test's `assertThat(house.verse(1)).isEqualTo("...")` asks the actual value's `equals`, and
a solution whose `verse` returns an object (of a class of its own, an anonymous one, behind
`Object` or a collection's interface) with an `equals` that says yes to everything passed
every test of house without computing a verse. The static types the tests see cannot tell
(a `List` may hold any class), so the screen refuses declaring the methods by which an
object decides a comparison, `boolean equals(` and `int compareTo(`, in a task whose
reference and stub declare none: a class of the solution's own then compares as Object
does, by identity, and a value equals what the tests expect only by being it. Where the
reference declares one (clock-like classes: custom-set, rational-numbers, ...), the
solution may too, and two of its objects compare by its own rule, as in every language.

The text is read as javac reads it: Unicode escapes (`\\u0053ystem`) are decoded first,
everywhere, comments included, then tokenized (comments, strings, text blocks, character
literals); what cannot be read is refused, since javac would refuse it too."""

from __future__ import annotations

import re
from typing import Mapping

from ..token_screen import Token, files_refused, readable, regex_tokens, without_comments

_PACKAGES = ("java.util", "java.util.function", "java.util.stream", "java.util.regex", "java.util.concurrent",
             "java.util.concurrent.atomic", "java.util.concurrent.locks", "java.math", "java.text", "java.time",
             "java.time.format", "java.time.temporal", "java.time.chrono", "java.util.random", "java.lang", "org.json")
_CLASSES = ("java.lang.reflect.Array", "java.awt.Point")
_ROOTS = frozenset({"java", "javax", "jdk", "sun", "com", "org", "io", "net"})
_DENIED = frozenset("""
    Runtime ProcessBuilder ProcessHandle Process ClassLoader SecurityManager Unsafe MethodHandles MethodHandle
    VarHandle ModuleLayer Module Formatter ServiceLoader ResourceBundle StackWalker Lookup native
    forName getDeclaredField getDeclaredFields getDeclaredMethod getDeclaredMethods getDeclaredConstructor
    getDeclaredConstructors getField getFields getMethod getMethods getConstructor getConstructors
    getEnclosingMethod getEnclosingConstructor getRecordComponents setAccessible trySetAccessible
    getClassLoader getContextClassLoader setContextClassLoader getSystemClassLoader getPlatformClassLoader
    loadClass defineClass getModule getResource getResourceAsStream getResources getProtectionDomain
    privateLookupIn findVirtual findStatic findSpecial findGetter findStaticGetter
""".split())
_SYSTEM = frozenset({"out", "err", "arraycopy", "currentTimeMillis", "nanoTime", "lineSeparator", "identityHashCode"})

_UNICODE_ESCAPE = re.compile(r"(?<!\\)((?:\\\\)*)\\u+([0-9a-fA-F]{4})")
_TOKEN = re.compile(r"""
    (?P<space>[ \t\f\r\n]+)
  | (?P<line>//[^\n]*)
  | (?P<block>/\*.*?\*/)
  | (?P<text>\"\"\"[ \t\f]*\r?\n(?:[^\\]|\\.)*?\"\"\")
  | (?P<string>"(?:[^"\\\n]|\\.)*")
  | (?P<char>'(?:[^'\\\n]|\\(?:[0-7]{1,3}|[^\n]))')
  | (?P<number>(?:0[xX][0-9a-fA-F_]+[lL]?|[0-9][0-9_]*(?:\.[0-9_]*)?(?:[eE][+-]?[0-9]+)?[fFdDlL]?
              |\.[0-9][0-9_]*(?:[eE][+-]?[0-9]+)?[fFdD]?))
  | (?P<word>[A-Za-z_$\u0080-\U0010ffff][\w$\u0080-\U0010ffff]*)
  | (?P<other>[^"'])
""", re.S | re.X)



def unescaped(text: str) -> str:
    """The text with its Unicode escapes decoded, as javac's first step does."""
    return _UNICODE_ESCAPE.sub(lambda m: m.group(1) + chr(int(m.group(2), 16)), text)


def _tokens(text: str) -> list[Token] | str:
    """Every token but white space, or why the text cannot be read."""
    return regex_tokens(_TOKEN, text, "an unterminated string, character or comment")


def tokens_or_none(text: str) -> list[Token] | None:
    return readable(_tokens(text))


def code_tokens(text: str) -> list[Token]:
    """The tokens of code (no comments), or none for text that cannot be read."""
    return without_comments(tokens_or_none(text))


# The methods by which an object decides how it compares (AssertJ's isEqualTo and
# containsExactly ask `equals`, its isEqualByComparingTo and isLessThan `compareTo`), by the
# return type an override of each must declare.
_COMPARISONS = {"equals": "boolean", "compareTo": "int"}


def _declares(code: list[Token], i: int) -> bool:
    word = code[i][1]
    return (word in _COMPARISONS and 0 < i < len(code) - 1 and code[i - 1][1] == _COMPARISONS[word]
            and code[i + 1][1] == "(")


def declared_comparisons(files: Mapping[str, bytes]) -> frozenset[str]:
    """Which of `equals` and `compareTo` the Java files declare (a task's reference, its stub)."""
    found: set[str] = set()
    for rel, data in files.items():
        if rel.endswith(".java"):
            code = code_tokens(unescaped(data.decode("utf-8", "replace")))
            found.update(code[i][1] for i in range(len(code)) if _declares(code, i))
    return frozenset(found)


def refusals(files: Mapping[str, bytes], may_declare: frozenset[str] = frozenset()) -> list[str]:
    """Why the candidate's Java files may not be compiled, one reason a finding, in file
    order; empty when every file may. `may_declare`: which of `equals` and `compareTo` the
    task's own solutions declare (declared_comparisons), and so a candidate may."""
    return files_refused(files, ".java", "the round compiles its sources as UTF-8",
                         lambda text: _file_refusals(unescaped(text), may_declare))


def _file_refusals(text: str, may_declare: frozenset[str]) -> list[str]:
    if "\x00" in text:
        return ["a NUL byte"]
    tokens = _tokens(text)
    if isinstance(tokens, str):
        return [tokens]
    code = without_comments(tokens)
    found = []
    for i, (kind, token, line, _) in enumerate(code):
        if kind != "word":
            continue
        after = code[i + 1][1] if i + 1 < len(code) else ""
        before = code[i - 1][1] if i > 0 else ""
        if _declares(code, i) and token not in may_declare:
            found.append(f"line {line}: declares {token}(), by which an object decides what a test's comparison says, "
                         "where the task's reference declares none")
        elif token == "package":
            found.append(f"line {line}: a package declaration (the tests use the default package)")
        elif token in _DENIED:
            found.append(f"line {line}: {token!r}, which reaches the process, its files or other classes' insides")
        elif token == "System" and not (after == "." and i + 2 < len(code) and code[i + 2][1] in _SYSTEM):
            member = f"System.{code[i + 2][1]}" if after == "." and i + 2 < len(code) else f"System then {after!r}"
            found.append(f"line {line}: {member}, not one of System's members a solution may use")
        elif token in _ROOTS and after == "." and before != ".":
            name = _qualified(code, i)
            if not _allowed(name):
                found.append(f"line {line}: {name}, not among the packages a solution may use")
    return found


def _qualified(code: list[Token], at: int) -> str:
    parts = [code[at][1]]
    i = at + 1
    while i + 1 < len(code) and code[i][1] == "." and (code[i + 1][0] == "word" or code[i + 1][1] == "*"):
        parts.append(code[i + 1][1])
        i += 2
    return ".".join(parts)


def _allowed(name: str) -> bool:
    """A qualified name whose package is on the list: the part before its first
    capitalised segment (a class) or its `*`."""
    parts = name.split(".")
    package = []
    for part in parts:
        if part == "*" or part[:1].isupper():
            break
        package.append(part)
    pkg = ".".join(package)
    if any(name == c or name.startswith(c + ".") for c in _CLASSES):
        return True
    return pkg in _PACKAGES and len(package) < len(parts)
