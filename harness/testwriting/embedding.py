"""Whether a written suite embeds the reference: holds a copy of one of the reference
solution's function bodies (pasted as a helper, renamed, or spelled out in a string) and so
can test the code against the reference itself, or against its text, instead of against
behaviour the suite states. Such a suite is still scored, but marked, counted apart in
reports and given no training reward.

The measure is token containment: the share of a reference function body's token 8-grams
(identifiers and numbers normalized, so renaming does not hide a copy; string and
character literals read as the code they hold) that also occur in the suite; a suite's
similarity is the largest share over the reference's bodies of at least MIN_GRAMS
8-grams. EMBEDS_AT is set from the figures in docs/verifiers.md (every fixed26 task's own
test file against copies of its reference pasted, renamed and quoted)."""

from __future__ import annotations

import ast

from ..languages.cpp.files import is_cpp_file
from ..languages.cpp.lexer import CPP_KEYWORDS, Token, code_tokens
from ..task import Task

GRAM = 8
MIN_GRAMS = 12      # bodies shorter than this (accessors, one-line returns) say nothing
EMBEDS_AT = 0.6     # docs/verifiers.md: honest suites at most 0.31, whole copies 1.00


def _unquote(literal: str) -> str:
    """A string or character literal's text (a raw string's body as it is)."""
    quote = min(i for i in (literal.find('"'), literal.find("'")) if i >= 0)
    prefix, body = literal[:quote], literal[quote:]
    if prefix.endswith("R"):
        return body[body.index("(") + 1:body.rindex(")")]
    try:
        return ast.literal_eval(body) if body.startswith('"') else body[1:-1]
    except (ValueError, SyntaxError):
        return body[1:-1]


def _words(tokens: list[Token], depth: int = 0) -> list[str]:
    """The tokens as compared: keywords and punctuation as they are, identifiers and
    numbers by their kind, a run of adjacent literals by the tokens of the text it holds."""
    out: list[str] = []
    quoted: list[str] = []
    for t in [*tokens, None]:
        if t is not None and t.kind in ("string", "char") and depth < 2:
            quoted.append(_unquote(t.text))
            continue
        if quoted:
            out += _words(code_tokens("".join(quoted)), depth + 1) or ["STR"]
            quoted = []
        if t is None:
            break
        if t.kind == "ident":
            out.append(t.text if t.text in CPP_KEYWORDS else "ID")
        elif t.kind in ("number", "string", "char"):
            out.append("NUM" if t.kind == "number" else "STR")
        else:
            out.append(t.text)
    return out


def _grams(words: list[str]) -> set[tuple[str, ...]]:
    return {tuple(words[i:i + GRAM]) for i in range(len(words) - GRAM + 1)}


def function_bodies(source: str) -> list[list[Token]]:
    """The outermost brace blocks that follow a `)` (a function's or a lambda's body,
    through `const`, `noexcept`, `override` or a trailing return type), in order."""
    tokens = code_tokens(source)
    bodies, i = [], 0
    while i < len(tokens):
        if tokens[i].text == "{" and _after_parameters(tokens, i):
            depth, j = 0, i
            while j < len(tokens):
                depth += {"{": 1, "}": -1}.get(tokens[j].text, 0)
                if depth == 0:
                    break
                j += 1
            bodies.append(tokens[i + 1:j])
            i = j + 1
            continue
        i += 1
    return bodies


def _after_parameters(tokens: list[Token], brace: int) -> bool:
    k = brace - 1
    while k >= 0 and tokens[k].text in ("const", "noexcept", "override", "final", "mutable"):
        k -= 1
    return k >= 0 and tokens[k].text == ")"


def reference_similarity(task: Task, suite: bytes) -> float:
    """The largest share of one reference function body's 8-grams found in the suite."""
    found = _grams(_words(code_tokens(suite.decode(errors="replace"))))
    best = 0.0
    for name, data in task.reference_files().items():
        if not is_cpp_file(name):
            continue
        for body in function_bodies(data.decode(errors="replace")):
            grams = _grams(_words(body))
            if len(grams) >= MIN_GRAMS:
                best = max(best, len(grams & found) / len(grams))
    return round(best, 4)


def embeds_reference(similarity: float) -> bool:
    return similarity >= EMBEDS_AT
