"""The one C++ lexer: the token stream that mutants are made on, that normal forms of code
are built from, and whose comments the static screen blanks. It reads tokens, not a parse
tree: comments, string and character literals (raw strings too) and preprocessor
directives each stay whole, so nothing inside them is mistaken for code."""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Token:
    kind: str  # ident, number, punct, string, char, comment, pp
    text: str
    start: int

    @property
    def end(self) -> int:
        return self.start + len(self.text)


_PUNCT = sorted(
    """>>= <<= <=> ->* ... :: -> ++ -- << >> <= >= == != && || += -= *= /= %= &= |= ^= .* ##
    { } [ ] ( ) ; : , . ? ~ ! + - * / % ^ & | = < > #""".split(),
    key=len, reverse=True,
)
_PREFIX = r"(?:u8|u|U|L)?"
_SCANNERS = [
    ("space", re.compile(r"\s+")),
    ("comment", re.compile(r"//[^\n]*|/\*.*?(?:\*/|\Z)", re.S)),
    ("rawstring", re.compile(_PREFIX + r'R"([^ ()\\\t\n]{0,16})\(.*?\)\1"', re.S)),
    ("string", re.compile(_PREFIX + r'"(?:\\.|[^"\\\n])*"')),
    ("char", re.compile(_PREFIX + r"'(?:\\.|[^'\\\n])+'")),
    ("number", re.compile(r"(?:\d|\.\d)(?:[eEpP][+-]|'(?=\w)|[\w.])*")),
    ("ident", re.compile(r"[A-Za-z_]\w*")),
    ("punct", re.compile("|".join(re.escape(p) for p in _PUNCT))),
]
_STRAY = re.compile(r".", re.S)
# A directive runs to the end of its line, continuation lines included.
_DIRECTIVE = re.compile(r"#(?:\\\n|[^\n])*")


def tokenize(text: str, directives: bool = True) -> list[Token]:
    """Every token of the text except whitespace. A preprocessor directive is one token;
    with `directives` off it is lexed like code (`#` a punctuator), so that comments
    inside a directive line are tokens of their own."""
    tokens: list[Token] = []
    i, n = 0, len(text)
    line_start = True  # only whitespace since the last newline
    while i < n:
        if directives and line_start and text[i] == "#":
            m = _DIRECTIVE.match(text, i)
            assert m is not None  # it matches any '#'
            tokens.append(Token("pp", m.group(), i))
            i = m.end()
            continue
        for kind, rx in _SCANNERS:
            m = rx.match(text, i)
            if m:
                break
        else:
            # A stray character (a backtick, '@', a non-ASCII byte): keep it as itself.
            m = _STRAY.match(text, i)
            kind = "punct"
        assert m is not None  # _STRAY matches any character
        piece = m.group()
        if kind == "space":
            if "\n" in piece:
                line_start = True
        else:
            tokens.append(Token("string" if kind == "rawstring" else kind, piece, i))
            line_start = False
        i = m.end()
    return tokens


def code_tokens(text: str) -> list[Token]:
    """The tokens a compiler sees as code: no comments, no preprocessor lines."""
    return [t for t in tokenize(text) if t.kind not in ("comment", "pp")]


def strip_comments(source: str) -> str:
    """The source with its comments gone, everything else as it was: a line comment is
    removed, a block comment blanked (its newlines kept, so line numbers stay), and string
    and character literals are kept (`"/proc"` in a string is still there)."""
    out: list[str] = []
    pos = 0
    for tok in tokenize(source, directives=False):
        if tok.kind == "comment":
            out.append(source[pos:tok.start])
            if tok.text.startswith("/*"):
                out.append(re.sub(r"[^\n]", " ", tok.text))
            pos = tok.end
    out.append(source[pos:])
    return "".join(out)


CPP_KEYWORDS = frozenset(
    """alignas alignof and and_eq asm auto bitand bitor bool break case catch char char8_t
    char16_t char32_t class compl concept const consteval constexpr constinit const_cast
    continue co_await co_return co_yield decltype default delete do double dynamic_cast else
    enum explicit export extern false float for friend goto if inline int long mutable
    namespace new noexcept not not_eq nullptr operator or or_eq private protected public
    register reinterpret_cast requires return short signed sizeof static static_assert
    static_cast struct switch template this thread_local throw true try typedef typeid
    typename union unsigned using virtual void volatile wchar_t while xor xor_eq""".split()
)
CPP_TYPE_WORDS = frozenset(
    "auto bool char char8_t char16_t char32_t const double float int long short signed "
    "unsigned void volatile wchar_t constexpr static".split()
)
