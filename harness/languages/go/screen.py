"""The screen of a candidate's Go files, and it decides: a file it refuses is never built.

The tests and the candidate compile into one binary, so whatever the candidate's code can
reach, the verdict can be reached by too: printing `--- PASS` lines or test2json events is
harmless (the verdict is not read from them, verdict.py), but a candidate that could open
a file descriptor, end the process with status 0, read the environment or the binary's
memory, or run tests of its own and exit could. Each of those needs a package from outside
a short list of pure ones (os, syscall, unsafe, runtime, io/ioutil, os/exec, net, plugin,
embed, C through cgo, ...) or a compiler directive (`//go:linkname` names any symbol of the
binary, `//go:embed` reads files at build time). So the screen takes a file only if every
import is on the list below and it has no `//go:` directive but a build constraint.
`reflect` is on it (a reference uses reflect.DeepEqual): without unsafe it reads values and
sets none it could not set anyway. `testing` is on it (counter's solution is a file of test
functions): `testing.Main` can end the process with status 0, but never with the verdict
channel's record, which only the harness's TestMain writes after the real `M.Run` returns
(a forgery, verdict.py); a run of the candidate's own tests (`MainStart`, `RunTests`) prints
events the verdict does not trust; the package opens files only where the binary's flags
ask, and the harness passes none; `T.Setenv` restores what it set when its test ends, and
TestMain has read the token before any test. `init` functions and package-level
initialisers run before the tests, but with only these packages they can do nothing a test
call could not.

The tests' files are of the solution's package too, so a name the solution declares at the
package's level is the one they read: `const false = true` made every case of beer-song's
tables expect an error, and an answer that always errs passed 11 of its 12 tests. So the
screen refuses a package-level declaration of a predeclared identifier (`true`, `false`,
`nil`, `len`, `string`, `error`, ...); declared inside a function, such a name is the
function's own. (What the solution reads of the tests' own names, testrun.py settles by
building it without them.)

The file is read by a tokenizer of Go's own rules (comments, interpreted and raw strings,
runes); what it cannot read (an unterminated string or comment) is refused too: the Go
compiler would refuse it, and the screen never guesses."""

from __future__ import annotations

import re
from typing import Mapping

from ..token_screen import COMMENTS, Token, files_refused, readable, regex_tokens, without_comments

# Packages with no way to the process's descriptors, environment, memory or exit status.
ALLOWED_IMPORTS = frozenset({
    "bufio", "bytes", "cmp", "container/heap", "container/list", "container/ring", "context", "errors", "fmt",
    "hash", "hash/adler32", "hash/crc32", "hash/crc64", "hash/fnv", "hash/maphash", "html", "index/suffixarray",
    "io", "log", "maps", "reflect", "math", "math/big", "math/bits", "math/cmplx", "math/rand", "path", "regexp",
    "regexp/syntax", "slices", "sort", "strconv", "strings", "sync", "sync/atomic", "text/scanner",
    "testing", "text/tabwriter", "time", "unicode", "unicode/utf16", "unicode/utf8",
    "encoding", "encoding/base32", "encoding/base64", "encoding/binary", "encoding/csv", "encoding/hex",
    "encoding/json", "crypto/md5", "crypto/sha1", "crypto/sha256", "crypto/sha512", "crypto/rand",
})

_TOKEN = re.compile(r"""
    (?P<space>[ \t\r\n]+)
  | (?P<line>//[^\n]*)
  | (?P<block>/\*.*?\*/)
  | (?P<raw>`[^`]*`)
  | (?P<string>"(?:[^"\\\n]|\\.)*")
  | (?P<rune>'(?:[^'\\\n]|\\[^\n]+?)')
  | (?P<word>[A-Za-z_\u0080-\U0010ffff][\w\u0080-\U0010ffff]*)
  | (?P<number>[0-9][\w.]*)
  | (?P<other>[^"'`])
""", re.S | re.X)
_DIRECTIVE = re.compile(r"//go:(?!build\b)\S*")
# Go's universe block: what a package-level declaration of the solution's would stand for in
# the tests' files.
_PREDECLARED = frozenset("""any bool byte comparable complex64 complex128 error float32 float64 int int8 int16 int32
    int64 rune string uint uint8 uint16 uint32 uint64 uintptr true false iota nil append cap clear close complex copy
    delete imag len make max min new panic print println real recover""".split())




def _tokens(text: str) -> list[Token] | str:
    """Every token but white space, or why the text cannot be read."""
    return regex_tokens(_TOKEN, text, "an unterminated string, rune or comment")


def tokens_or_none(text: str) -> list[Token] | None:
    return readable(_tokens(text))


def refusals(files: Mapping[str, bytes]) -> list[str]:
    """Why the candidate's Go files may not be built, one reason a finding, in file order;
    empty when every file may."""
    return files_refused(files, ".go", "Go source is", _file_refusals)


def _file_refusals(text: str) -> list[str]:
    if "\x00" in text:
        return ["a NUL byte (the Go compiler refuses it)"]
    tokens = _tokens(text)
    if isinstance(tokens, str):
        return [tokens]
    found = []
    for kind, token, line, _ in tokens:
        directive = _DIRECTIVE.search(token) if kind in COMMENTS else None
        if directive is not None:
            found.append(f"line {line}: the compiler directive {directive.group()!r}")
    code = without_comments(tokens)
    for i, (kind, token, line, _) in enumerate(code):
        if kind == "word" and token == "import":
            found.extend(_import_refusals(code, i + 1))
    found += [f"line {line}: declares {name!r} for the whole package, where the tests read it as Go's own"
              for line, name in package_names(code) if name in _PREDECLARED]
    return found


def package_names(code: list[Token]) -> list[tuple[int, str]]:
    """Each name the file declares at the package's level, with its line: functions (not
    methods), and the names of every `var`, `const` and `type` spec, alone or in a group."""
    found: list[tuple[int, str]] = []
    depth = 0
    group: str | None = None  # the keyword of the group open at depth 1
    for i, (kind, token, line, _) in enumerate(code):
        before = code[i - 1] if i > 0 else None
        if token in ("(", "{", "["):
            depth += 1
            continue
        if token in (")", "}", "]"):
            depth -= 1
            if depth == 0:
                group = None
            continue
        if kind != "word" or before is None:
            continue
        if depth == 0 and before[1] in ("func", "var", "const", "type"):
            found += _name_list(code, i)
        elif depth == 0 and token in ("var", "const", "type") and i + 1 < len(code) and code[i + 1][1] == "(":
            group = token
        elif depth == 1 and group is not None and (before[1] in ("(", ";") or before[2] < line) \
                and (i + 1 >= len(code) or code[i + 1][2] > line or code[i + 1][1] == ")"
                     or code[i + 1][0] == "word" or code[i + 1][1] in (",", "=", "[", "*")):
            # A spec's start (a lone name repeats the expression before it: `false` after
            # `a = true`), not a line that goes on with a call or an operator.
            found += _name_list(code, i)
    return found


def _name_list(code: list[Token], at: int) -> list[tuple[int, str]]:
    """The names `a, b, c` from `at` on."""
    names = [(code[at][2], code[at][1])]
    j = at + 1
    while j + 1 < len(code) and code[j][1] == "," and code[j + 1][0] == "word":
        names.append((code[j + 1][2], code[j + 1][1]))
        j += 2
    return names


def _import_refusals(code: list[Token], at: int) -> list[str]:
    """The import declaration starting after `import` at `at`: one spec, or a parenthesised
    group; every path must be allowed, and anything that is not a spec is refused."""
    grouped = at < len(code) and code[at][1] == "("
    i = at + 1 if grouped else at
    found: list[str] = []
    while i < len(code):
        kind, token, line, _ = code[i]
        if grouped and token == ")":
            return found
        if grouped and token == ";":
            i += 1
            continue
        if kind == "word" or token in (".", "_"):  # the spec's name
            i += 1
            if i >= len(code):
                break
            kind, token, line, _ = code[i]
        if kind not in ("string", "raw"):
            return [*found, f"line {line}: an import declaration the screen cannot read"]
        path = token[1:-1]
        if path not in ALLOWED_IMPORTS:
            found.append(f"line {line}: imports {path!r}, which is not among the packages a solution may use")
        i += 1
        if not grouped:
            return found
    return [*found, "an import declaration without its end"]
