"""A JavaScript tokenizer good enough to find the spec files' `describe`/`test` calls and to
make mutants on code tokens only: comments, strings, template literals (with their `${}`
parts read as code) and regular-expression literals (told from division by the token before
them, as the language's grammar does in practice) are tokens of their own, so nothing inside
one is taken for code. Text it cannot read (an unterminated string, comment or template) is
None: the caller does not guess."""

from __future__ import annotations

import re

Token = tuple[str, str, int]  # kind, text, offset in characters

_SIMPLE = re.compile(r"""
    (?P<space>\s+)
  | (?P<line>//[^\n]*)
  | (?P<block>/\*.*?\*/)
  | (?P<string>"(?:[^"\\\n]|\\.|\\\n)*"|'(?:[^'\\\n]|\\.|\\\n)*')
  | (?P<word>[A-Za-z_$\u0080-\U0010ffff][\w$\u0080-\U0010ffff]*)
  | (?P<number>(?:\d[\w.]*|\.\d[\w]*)(?:[eE][+-]\d+)?)
""", re.S | re.X)
_PUNCT = sorted("""
    >>>= ... === !== **= <<= >>= >>> &&= ||= ??= => == != <= >= && || ?? ?. ++ -- += -= *= /= %= &= |= ^= ** << >>
""".split(), key=len, reverse=True)
_REGEX = re.compile(r"/(?:[^/\\\[\n]|\\.|\[(?:[^\]\\\n]|\\.)*\])+/[A-Za-z]*")
# After these a `/` starts a regular expression, after anything else it divides.
_REGEX_AFTER_WORDS = frozenset("return typeof instanceof in of new delete void throw case do else yield await".split())


def _regex_allowed(prev: Token | None) -> bool:
    if prev is None:
        return True
    kind, text, _ = prev
    if kind in ("number", "string", "template", "regex"):
        return False
    if kind == "word":
        return text in _REGEX_AFTER_WORDS
    return text not in (")", "]", "}")


def tokens(text: str) -> list[Token] | None:
    """Every token but white space (comments included), or None where the text cannot be read."""
    out: list[Token] = []
    braces: list[str] = []  # "{" of code, "`" of a template's ${ } part
    at = 0
    while at < len(text):
        ch = text[at]
        if ch == "`" or (ch == "}" and braces and braces[-1] == "`"):
            if ch == "}":
                braces.pop()
            end = _template_end(text, at + 1)
            if end is None:
                return None
            out.append(("template", text[at:end], at))
            if text[end - 1] == "{":  # stopped at a `${`: code follows until its `}`
                braces.append("`")
            at = end
            continue
        m = _SIMPLE.match(text, at)
        if m is not None:
            if m.lastgroup != "space":
                out.append((m.lastgroup or "", m.group(), at))
            at = m.end()
            continue
        if ch in "\"'":
            return None
        if text.startswith("/*", at):
            return None
        prev = next((t for t in reversed(out) if t[0] not in ("line", "block")), None)
        if ch == "/" and _regex_allowed(prev):
            r = _REGEX.match(text, at)
            if r is None:
                return None
            out.append(("regex", r.group(), at))
            at = r.end()
            continue
        op = next((p for p in _PUNCT if text.startswith(p, at)), ch)
        if op == "{":
            braces.append("{")
        elif op == "}" and braces:
            braces.pop()
        out.append(("other", op, at))
        at += len(op)
    return None if braces and braces[-1] == "`" else out


def _template_end(text: str, at: int) -> int | None:
    """Where a template's literal part that starts at `at` ends: after its closing backtick,
    or after the `${` that opens a code part."""
    while at < len(text):
        ch = text[at]
        if ch == "\\":
            at += 2
        elif ch == "`":
            return at + 1
        elif text.startswith("${", at):
            return at + 2
        else:
            at += 1
    return None


def code(toks: list[Token]) -> list[Token]:
    return [t for t in toks if t[0] not in ("line", "block")]
