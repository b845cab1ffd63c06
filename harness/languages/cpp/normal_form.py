"""C++'s normal form, for near-duplicate detection (`Language.normal_form`): two attempts
that differ only in comments, layout or the names of their own locals share one.

The normal form of a file is its token stream (lexer.py) without comments, preprocessor
lines with their spacing squashed, and every name the code itself declares (a variable, a
parameter, a helper) replaced by its order of first appearance. Names the task's own files
use (its interface: what the tests call) are kept, as are keywords and library names, so
code that calls something else stays different."""

from __future__ import annotations

from .lexer import CPP_KEYWORDS, CPP_TYPE_WORDS, Token, tokenize

# The token after a declared name: an initialiser, the end of the declaration, a parameter
# list, an array bound, a range-for colon.
_AFTER_DECLARED = frozenset({"=", ";", ",", "(", ")", "{", "[", ":"})


def _declared(tokens: list[Token], keep: set[str]) -> set[str]:
    """Names the code declares: a name right after a type (a name that is not a keyword,
    a type keyword, or a closing `>`, `*`, `&`) and right before what may follow a
    declarator."""
    out = set()
    for i in range(1, len(tokens) - 1):
        tok, prev, nxt = tokens[i], tokens[i - 1], tokens[i + 1]
        if tok.kind != "ident" or tok.text in CPP_KEYWORDS or tok.text in keep or nxt.text not in _AFTER_DECLARED:
            continue
        type_before = (
            (prev.kind == "ident" and (prev.text not in CPP_KEYWORDS or prev.text in CPP_TYPE_WORDS))
            or prev.text in (">", ">>", "*", "&", "&&")
        )
        if type_before:
            out.add(tok.text)
    return out


def normal_form(text: str, keep: set[str]) -> str:
    tokens = [t for t in tokenize(text) if t.kind != "comment"]
    local = _declared([t for t in tokens if t.kind != "pp"], keep)
    names: dict[str, str] = {}
    out = []
    for t in tokens:
        if t.kind == "pp":
            out.append(" ".join(t.text.replace("\\\n", " ").split()))
        elif t.kind == "ident" and t.text in local:
            out.append(names.setdefault(t.text, f"_{len(names)}"))
        else:
            out.append(t.text)
    return " ".join(out)


def names(text: str) -> set[str]:
    """Every identifier of a text."""
    return {t.text for t in tokenize(text) if t.kind == "ident"}
