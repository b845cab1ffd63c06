"""The screen of a candidate's Rust files, and it decides: a file it refuses is never built.

The candidate's crate is linked into the test binaries, so whatever its code can reach, the
verdict could be reached by too. The verdict is read from libtest's log file and the
binaries' exit statuses (verdict.py); what a test prints is captured by libtest and reaches
the events only as a field of a test's own record. So the screen refuses every way to the
process that safe Rust has beside printing:

- `unsafe` and `extern` but `extern crate` (raw memory, foreign functions: `write(3, ..)`,
  `_exit(0)`);
- the standard library's ways out of the process's memory: `std::process` (exit, abort,
  commands), `std::env`, `std::net`, `std::os`, the standard streams' handles (`stdout()`
  writes past libtest's capture), panic hooks, `std::fs` (in a task whose tests use it, as
  grep's write the files its solution reads, reading a file whole is let through:
  `fs::read_to_string`, `fs::read`);
- the macros that read the build machine (`include!`, `include_str!`, `include_bytes!`,
  `env!`, `option_env!`) or write machine code (`asm!`, `global_asm!`);
- every attribute but a short list with no effect on linking or on which file is a module
  (no `no_mangle`, `export_name`, `link_section`, `used`, `path`, `global_allocator`,
  `cfg_attr`, `no_std`, `feature`, ...), and a `#` that starts no attribute (a macro could
  put it before brackets it got elsewhere);
- a declaration whose name is one the tests' `use <crate>::*;` would take from the solution
  in place of the language's (a glob import shadows the prelude and the primitive types):
  a `fn Some` that returns `None`, or a `const None` that is `Some(5)`, made wordy's
  upstream tests compare the answer with what the solution chose. So no public item,
  variant of a public enum or name of a `pub use` of the solution is `Some`, `None`, `Ok`,
  `Err`, `String`, `u32`, `std` or another name of the prelude, unless the task's own
  reference or stub declares it (forth's stub declares `pub type Result`); and no item
  takes its name from a macro's caller (`fn $name`), which the screen could not read.

Names are refused as words wherever they stand (a path segment, an alias, a macro's
argument), raw identifiers (`r#process`) read as the word they spell: the compiler resolves
none of them without the word in the text. The file is read by a tokenizer of Rust's rules
(nested block comments, raw strings, byte strings, characters against lifetimes); what it
cannot read is refused too, never guessed."""

from __future__ import annotations

import re
from typing import Mapping

from ..token_screen import Token, files_refused, readable, without_comments

REFUSED_WORDS = frozenset({
    "unsafe", "extern", "process", "env", "net", "os", "stdout", "stderr", "stdin", "set_hook", "take_hook",
    "include", "include_str", "include_bytes", "option_env", "asm", "global_asm", "llvm_asm", "libc",
})
# Attributes (by their first path segment) that change neither linking nor where code comes from.
ALLOWED_ATTRIBUTES = frozenset({
    "allow", "warn", "deny", "forbid", "derive", "cfg", "test", "ignore", "should_panic", "inline", "must_use", "doc",
    "non_exhaustive", "rustfmt", "clippy", "repr", "macro_export", "track_caller", "cold", "automatically_derived",
})
# The names the tests' glob import of the crate would take from it in place of the language's
# (Rust 2021's prelude, its primitive types, the standard crates), and the keywords that
# declare a name in the crate. `drop` is left out: `fn drop` is Drop's method.
_PRELUDE = frozenset("""Copy Send Sized Sync Unpin Drop Fn FnMut FnOnce Box ToOwned Clone PartialEq PartialOrd Eq Ord
    AsRef AsMut Into From Default Iterator Extend IntoIterator DoubleEndedIterator ExactSizeIterator Option Some None
    Result Ok Err String ToString Vec TryFrom TryInto FromIterator
    bool char str u8 u16 u32 u64 u128 usize i8 i16 i32 i64 i128 isize f32 f64 std core alloc""".split())
_DECLARING = frozenset("fn struct enum union type trait const static mod".split())
# What `fs::` may be followed by: reading a file whole; `fs` named alone is a `use` of the
# module, whose every later use is screened in turn.
_FS_READS = frozenset({"read_to_string", "read"})

_TOKEN = re.compile(r"""
    (?P<space>\s+)
  | (?P<line>//[^\n]*)
  | (?P<raw>b?r(?P<hashes>\#*)".*?"(?P=hashes))
  | (?P<string>b?"(?:[^"\\]|\\.)*")
  | (?P<rune>b?'(?:[^'\\\n]|\\(?:[nrt\\0'"]|x[0-9a-fA-F]{2}|u\{[0-9a-fA-F_]{1,6}\}))')
  | (?P<lifetime>'[A-Za-z_]\w*)
  | r\#(?P<rawword>[A-Za-z_]\w*)
  | (?P<word>[A-Za-z_\u0080-\U0010ffff][\w\u0080-\U0010ffff]*)
  | (?P<number>[0-9]\w*(?:\.[0-9]\w*)?)
  | (?P<other>[^"'])
""", re.S | re.X)



def _block_end(text: str, at: int) -> int:
    """The end of the (nested) block comment starting at `at`, or -1 where it has none."""
    depth, i = 0, at
    while i < len(text) - 1:
        pair = text[i:i + 2]
        if pair == "/*":
            depth, i = depth + 1, i + 2
        elif pair == "*/":
            depth, i = depth - 1, i + 2
            if depth == 0:
                return i
        else:
            i += 1
    return -1


def _tokens(text: str) -> list[Token] | str:
    """Every token but white space, or why the text cannot be read."""
    out: list[Token] = []
    at, line = 0, 1
    while at < len(text):
        if text.startswith("/*", at):
            end = _block_end(text, at)
            if end < 0:
                return f"line {line}: an unterminated block comment"
            kind, token = "block", text[at:end]
        else:
            m = _TOKEN.match(text, at)
            if m is None:
                return f"line {line}: an unterminated string or character"
            kind, token = m.lastgroup or "", m.group()
            if kind == "hashes":
                kind = "raw"
            if kind == "rawword":
                kind, token = "word", m.group("rawword")
                out.append((kind, token, line, at + 2))
                at = m.end()
                continue
        if kind != "space":
            out.append((kind, token, line, at))
        line += token.count("\n")
        at += len(token)
    return out


def tokens_or_none(text: str) -> list[Token] | None:
    return readable(_tokens(text))


def code_tokens(text: str) -> list[Token]:
    """The tokens of the code (no comments), none for a text the tokenizer cannot read."""
    return without_comments(tokens_or_none(text))


def refusals(files: Mapping[str, bytes], *, may_read_files: bool = False,
             may_declare: frozenset[str] = frozenset()) -> list[str]:
    """Why the candidate's Rust files may not be built, one reason a finding, in file order;
    empty when every file may. `may_read_files`: the task's own tests use `std::fs` (they
    write the files the solution reads), so a solution may read a file whole. `may_declare`:
    the prelude's names that the task's own solutions declare (forth's stub gives its
    `Result`), and so a solution may (declared_names)."""
    return files_refused(files, ".rs", "Rust source is", lambda text: _file_refusals(text, may_read_files, may_declare))


def declared_names(files: Mapping[str, bytes]) -> frozenset[str]:
    """The prelude's names that the Rust files declare in public (a task's reference, its stub)."""
    return frozenset(name for rel, data in files.items() if rel.endswith(".rs")
                     for _, name in shadowing(code_tokens(data.decode("utf-8", "replace"))) if name != "$")


def _file_refusals(text: str, may_read_files: bool, may_declare: frozenset[str]) -> list[str]:
    if "\x00" in text:
        return ["a NUL byte"]
    tokens = _tokens(text)
    if isinstance(tokens, str):
        return [tokens]
    code = without_comments(tokens)
    found = []
    for i, (kind, token, line, _) in enumerate(code):
        after = [t[1] for t in code[i + 1:i + 4]]
        if kind == "word" and token == "extern" and after[:1] == ["crate"]:
            continue  # a dependency named in the 2015 edition's way: only the manifest's can be
        if kind == "word" and token in REFUSED_WORDS:
            found.append(f"line {line}: {token!r}, which a solution may not use")
        elif kind == "word" and token == "fs" and not (may_read_files and _fs_read(after)):
            found.append(f"line {line}: 'fs' " + ("other than to read a file whole" if may_read_files
                                                   else "which a solution may not use"))
        elif kind == "other" and token == "#":
            why = _attribute_refusal(code, i)
            if why:
                found.append(f"line {line}: {why}")
    for line, name in shadowing(code):
        if name == "$":
            found.append(f"line {line}: an item named by a macro's caller")
        elif name not in may_declare:
            found.append(f"line {line}: a public {name!r}, which the tests' glob import would take in place of the "
                         "language's own")
    return found


def shadowing(code: list[Token]) -> list[tuple[int, str]]:
    """The public names of the solution that would stand for the language's in the tests
    (the module docstring), each with its line: items of the crate or of its modules (not
    an impl's or a function's, such as FromStr's `type Err`), variants of its public enums,
    names a `pub use` gives; and, as "$", items whose name a macro's caller gives."""
    found: list[tuple[int, str]] = []
    in_use = False
    blocks: list[str] = []  # what each open brace opened (_opened)
    nested = 0  # open parentheses and brackets
    for i, (kind, token, line, _) in enumerate(code):
        before = code[i - 1][1] if i > 0 else ""
        after = code[i + 1][1] if i + 1 < len(code) else ""
        if kind == "word" and token == "use":
            in_use = _public(code, i)
        elif token == ";":
            in_use = False
        elif token in "([":
            nested += 1
        elif token in ")]":
            nested = max(0, nested - 1)
        elif token == "{":
            blocks.append(_opened(code, i))
        elif token == "}" and blocks:
            blocks.pop()
        top = all(b in ("mod", "macro") for b in blocks)
        if token == "$" and before in _DECLARING and top:
            found.append((line, "$"))
        if kind != "word" or token not in _PRELUDE:
            continue
        item = before in _DECLARING and top and _public(code, i - 1)
        variant = bool(blocks) and blocks[-1] == "pub enum" and nested == 0 and before in ("{", ",", "]")
        exported = in_use and (before == "as" or after in (",", ";", "}") and before in ("::", "{", ","))
        if item or variant or exported:
            found.append((line, token))
    return found


def _public(code: list[Token], at: int) -> bool:
    """Whether the item whose keyword is at `at` is visible outside the crate: `pub` before
    it (past `const`, `async`, `unsafe`, `extern "C"`), or a visibility a macro's caller gives
    (`$vis fn`); `pub(crate)` and the like are not."""
    j = at - 1
    while j >= 0 and (code[j][1] in ("const", "async", "unsafe", "extern") or code[j][0] == "string"):
        j -= 1
    if j >= 0 and code[j][1] == "pub":
        return True
    return j >= 1 and code[j][0] == "word" and code[j - 1][1] == "$"


def _opened(code: list[Token], brace: int) -> str:
    """What the `{` at `brace` opens: a public enum's body ("pub enum"), another enum's, a
    module's, a macro's (`macro_rules! m {`, an arm's `=> {`: what it expands to may be an
    item of the crate), or anything else."""
    j = brace - 1
    while j >= 0 and code[j][1] not in (";", "{", "}"):
        word = code[j][1] if code[j][0] == "word" else None
        if word == "enum":
            return "pub enum" if _public(code, j) else "enum"
        if word == "mod" or word == "macro_rules" or code[j][1] == ">" and j > 0 and code[j - 1][1] == "=":
            return "mod" if word == "mod" else "macro"
        j -= 1
    return "other"


def _fs_read(after: list[str]) -> bool:
    if after[:1] in ([","], [";"], ["}"]):
        return True
    return after[:2] == [":", ":"] and len(after) > 2 and after[2] in _FS_READS


def _attribute_refusal(code: list[Token], at: int) -> str | None:
    i = at + 1
    if i < len(code) and code[i][1] == "!":
        i += 1
    if i >= len(code) or code[i][1] != "[":
        return "a '#' that starts no attribute"
    if i + 1 >= len(code) or code[i + 1][0] != "word":
        return "an attribute the screen cannot read"
    name = code[i + 1][1]
    if name not in ALLOWED_ATTRIBUTES:
        return f"the attribute {name!r}, which a solution may not use"
    return None
