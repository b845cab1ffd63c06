"""Automatic mutants of C++ source: small, plausible changes to a correct solution that a
good test suite notices. Suite validation measures how many its tests kill; the repair
curriculum uses the ones that compile and fail as broken starting points.

The generator works on a token stream of each file (lexer.py), never on a parse tree:
comments, string and character literals and preprocessor lines are tokens it never
touches, and a few local heuristics (template angle brackets, declarations, braces that
open code) keep most mutants compilable. A mutant that does not compile is not wrong, only useless; callers count it
apart."""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass
from typing import Iterable, Mapping

from .files import is_cpp_file
from .lexer import CPP_KEYWORDS, CPP_TYPE_WORDS, Token, code_tokens, tokenize
from ...hashing import sha256_text
from ..mutation import Mutant, Operator, decode as _decode, sample


def _is_name(tok: Token | None) -> bool:
    return tok is not None and tok.kind == "ident" and tok.text not in CPP_KEYWORDS


_TEMPLATE_OPENERS = frozenset({"template", "static_cast", "dynamic_cast", "const_cast", "reinterpret_cast"})
_NOT_IN_TYPES = frozenset({";", "{", "}", "&&", "||", "?", "=", "+=", "-=", "*=", "/=", "return"})


def _template_brackets(toks: list[Token]) -> set[int]:
    """Indices of `<`, `>` and `>>` tokens that delimit template arguments. A `<` after a
    name opens template arguments when a closing `>` follows before anything that cannot
    appear in a type list (`;`, braces, `&&`, `||`, `?`, an assignment, an unopened `)`)."""
    marked: set[int] = set()
    for i, tok in enumerate(toks):
        if tok.text != "<" or i in marked or not i:
            continue
        prev = toks[i - 1]
        if not (_is_name(prev) or prev.text in _TEMPLATE_OPENERS):
            continue
        # Only a template's own parameter list may hold a default (`typename T = int`).
        stop = _NOT_IN_TYPES - {"="} if prev.text == "template" else _NOT_IN_TYPES
        depth, paren, seen = 1, 0, [i]
        for j in range(i + 1, min(len(toks), i + 80)):
            t = toks[j].text
            if t in ("(", "["):
                paren += 1
            elif t in (")", "]"):
                if paren == 0:
                    break
                paren -= 1
            elif paren:
                continue
            elif t in stop:
                break
            elif t == "<":
                if not _is_name(toks[j - 1]):
                    break
                depth += 1
                seen.append(j)
            elif t in (">", ">>"):
                depth -= len(t)
                seen.append(j)
                if depth <= 0:
                    marked.update(seen)
                    break
    return marked


# --- where mutations go ------------------------------------------------------------------

_SWAPS = {
    "+": ("-", Operator.arithmetic), "-": ("+", Operator.arithmetic),
    "*": ("/", Operator.arithmetic), "/": ("*", Operator.arithmetic),
    "+=": ("-=", Operator.arithmetic), "-=": ("+=", Operator.arithmetic),
    "*=": ("/=", Operator.arithmetic), "/=": ("*=", Operator.arithmetic),
    "<": ("<=", Operator.relational), "<=": ("<", Operator.relational),
    ">": (">=", Operator.relational), ">=": (">", Operator.relational),
    "==": ("!=", Operator.relational), "!=": ("==", Operator.relational),
    "&&": ("||", Operator.logical), "||": ("&&", Operator.logical),
}


def _binary(toks: list[Token], i: int) -> bool:
    """Whether the `*` or `&&` at i sits between two values rather than in a type
    (`Node* next`, `T&& value`, `auto* p`, `const Node* n`)."""
    prev = toks[i - 1] if i else None
    nxt = toks[i + 1] if i + 1 < len(toks) else None
    if prev is None or nxt is None:
        return False
    if prev.text in CPP_TYPE_WORDS or nxt.text in (")", ",", ">", "*", "&", "const", "...", "=", ";"):
        return False
    if _is_name(prev):
        # A name right after `const`, or at the start of a statement, is a type.
        before = toks[i - 2].text if i > 1 else ";"
        return before not in ("const", "volatile", ";", "{", "}", "typename")
    return prev.kind in ("number", "string", "char") or prev.text in (")", "]", "this")


_SIGNATURE_END = frozenset({"{", ":", "const", "noexcept", "override", "mutable", "->"})


def _parameter_lists(toks: list[Token]) -> set[int]:
    """Indices of the tokens inside the parentheses of function and lambda definitions:
    declarations only, where `*` and `&&` belong to types."""
    inside: set[int] = set()
    for i, tok in enumerate(toks):
        if tok.text != "(" or not i:
            continue
        prev = toks[i - 1]
        if not (_is_name(prev) or prev.text in ("]", ">")):
            continue
        close = _matching(toks, i)
        if close is not None and close + 1 < len(toks) and toks[close + 1].text in _SIGNATURE_END:
            inside.update(range(i + 1, close))
    return inside


def _operator_sites(toks: list[Token], templates: set[int]) -> Iterable[tuple[int, str, Operator]]:
    params = _parameter_lists(toks)
    for i, tok in enumerate(toks):
        swap = _SWAPS.get(tok.text) if tok.kind == "punct" else None
        if swap is None or i in templates:
            continue
        if i and toks[i - 1].text == "operator":
            continue
        if tok.text in ("*", "&&") and (i in params or not _binary(toks, i)):
            continue
        yield i, swap[0], swap[1]


_LEVEL_BOUNDS = frozenset({",", ";", "?", ":", "=", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<<=", ">>=",
                           "return", "{", "}"})


def _logical_operands(toks: list[Token], i: int) -> tuple[list[tuple[int, int]], list[int]] | None:
    """The operands (first, last token) and operators of the `&&`/`||` chain the operator
    at i belongs to: the tokens at its own bracket depth, up to the enclosing bracket or
    the end of the expression."""
    def walk(step: int, opening: str, closing: str) -> int:
        depth, j = 0, i
        while 0 <= j + step < len(toks):
            t = toks[j + step].text
            if t in opening:
                depth += 1
            elif t in closing:
                if depth == 0:
                    return j
                depth -= 1
            elif depth == 0 and t in _LEVEL_BOUNDS:
                return j
            j += step
        return j

    first, last = walk(-1, ")]", "([{"), walk(1, "([", ")]}")
    ops, depth = [], 0
    for j in range(first, last + 1):
        t = toks[j].text
        if t in ("(", "["):
            depth += 1
        elif t in (")", "]"):
            depth -= 1
        elif depth == 0 and t in ("&&", "||"):
            ops.append(j)
    bounds = [first - 1, *ops, last + 1]
    operands = [(bounds[k] + 1, bounds[k + 1] - 1) for k in range(len(bounds) - 1)]
    if any(a > b for a, b in operands):
        return None
    return operands, ops


def _logical_swap(text: str, toks: list[Token], i: int, new: str) -> tuple[int, int, str] | None:
    """Swap the `&&`/`||` at i. In a chain of the same operator the swap would mix `&&`
    into `||` without parentheses, which -Wparentheses (-Wall) rejects, so the operands
    the new operator binds are parenthesized: `a || b || c` becomes `(a && b) || c`, and
    `a && b && c` becomes `(a && b) || c`. Returns the changed span and its new text."""
    found = _logical_operands(toks, i)
    if found is None:
        return None
    operands, ops = found
    if len(ops) == 1:
        return toks[i].start, toks[i].end, new
    if len({toks[j].text for j in ops}) > 1:
        return None  # already mixed, so already parenthesized at a deeper level: leave it
    k = ops.index(i)
    start, end = toks[operands[0][0]].start, toks[operands[-1][1]].end
    op_start, op_end = toks[i].start, toks[i].end

    def span(group: list[tuple[int, int]]) -> tuple[int, int]:
        return toks[group[0][0]].start, toks[group[-1][1]].end

    def wrapped(group: list[tuple[int, int]], body: str) -> str:
        return f"({body})" if len(group) > 1 else body

    if new == "&&":
        # The new `&&` binds its two neighbours, inside the `||` chain.
        pair = operands[k:k + 2]
        a, b = span(pair)
        body = text[a:op_start] + new + text[op_end:b]
        return start, end, text[start:a] + wrapped(pair, body) + text[b:end]
    # The new `||` splits the `&&` chain in two, each side still an `&&` chain.
    left, right = operands[:k + 1], operands[k + 1:]
    (la, lb), (ra, rb) = span(left), span(right)
    replacement = wrapped(left, text[la:lb]) + text[lb:op_start] + new + text[op_end:ra] + wrapped(right, text[ra:rb])
    return start, end, replacement


_INT = re.compile(r"(0|[1-9][0-9']*)([uUlLzZ]*)")
_FLOAT = re.compile(r"((?:\d[\d']*)?\.?[\d']*(?:[eE][+-]?\d+)?)([fFlL]?)")


def _fmt_float(value: float, suffix: str) -> str:
    text = repr(value)
    text = (text if any(c in text for c in ".eEn") else text + ".0") + suffix
    # Parenthesized, so that `- 0.5` shifted down reads `-(-0.5)`, not a decrement.
    return f"({text})" if value < 0 else text


def _constant_sites(toks: list[Token]) -> Iterable[tuple[Token, str, Operator]]:
    for tok in toks:
        if tok.text in ("true", "false"):
            yield tok, "false" if tok.text == "true" else "true", Operator.constant
        if tok.kind != "number":
            continue
        m = _INT.fullmatch(tok.text)
        if m:
            value, suffix = int(m.group(1).replace("'", "")), m.group(2)
            yield tok, f"{value + 1}{suffix}", Operator.boundary
            if value > 0:
                yield tok, f"{value - 1}{suffix}", Operator.boundary
            if value > 1:
                yield tok, f"0{suffix}", Operator.constant
            continue
        m = _FLOAT.fullmatch(tok.text)
        if m and any(c in tok.text for c in ".eE") and not tok.text.lower().startswith("0x"):
            try:
                real = float(m.group(1).replace("'", ""))
            except ValueError:
                continue
            suffix = m.group(2)
            yield tok, _fmt_float(real + 1, suffix), Operator.boundary
            yield tok, _fmt_float(real - 1, suffix), Operator.boundary
            if real != 0:
                yield tok, "0.0" + suffix, Operator.constant


def _matching(toks: list[Token], i: int) -> int | None:
    """Index of the bracket closing the one at i."""
    opening, closing = toks[i].text, {"(": ")", "[": "]", "{": "}"}[toks[i].text]
    depth = 0
    for j in range(i, len(toks)):
        if toks[j].text == opening:
            depth += 1
        elif toks[j].text == closing:
            depth -= 1
            if depth == 0:
                return j
    return None


def _condition_sites(toks: list[Token]) -> Iterable[tuple[Token, Token]]:
    """First and last token of each if/while condition (after a C++17 init-statement)."""
    for i, tok in enumerate(toks):
        if tok.text not in ("if", "while") or tok.kind != "ident":
            continue
        k = i + 1
        if k < len(toks) and toks[k].text == "constexpr":
            k += 1
        if k >= len(toks) or toks[k].text != "(":
            continue
        close = _matching(toks, k)
        if close is None or close == k + 1:
            continue
        first, depth = k + 1, 0
        for j in range(k + 1, close):
            t = toks[j].text
            if t in ("(", "[", "{"):
                depth += 1
            elif t in (")", "]", "}"):
                depth -= 1
            elif t == ";" and depth == 0:
                first = j + 1
        if first < close:
            yield toks[first], toks[close - 1]


# Braces after these open code (a function body, a block); after anything else inside a
# class or namespace they open a class body, an enum, an initializer.
_BODY_AFTER = frozenset({")", "else", "do", "try", "const", "noexcept", "override", "mutable"})
_NOT_STATEMENTS = frozenset(
    """if for while switch do else try catch using typedef static_assert goto case default
    static const constexpr auto thread_local extern struct class enum union template
    typename namespace friend return delete""".split()
) | CPP_TYPE_WORDS


@dataclass
class _Frame:
    code: bool
    paren: int = 0
    start: int | None = None


def _statement_spans(toks: list[Token]) -> list[tuple[int, int]]:
    """(first, last) token indices of the statements directly inside code blocks that end
    with `;`: the only statements a deletion may remove."""
    spans: list[tuple[int, int]] = []
    stack = [_Frame(code=False)]
    for k, tok in enumerate(toks):
        f = stack[-1]
        t = tok.text
        if f.code and f.paren == 0 and f.start is None and t not in (";", "}"):
            f.start = k
        if t in ("(", "["):
            f.paren += 1
        elif t in (")", "]"):
            f.paren = max(0, f.paren - 1)
        elif t == "{":
            prev = toks[k - 1].text if k else ""
            code = (
                prev in _BODY_AFTER
                or (f.code and f.paren == 0 and prev in (";", "{", "}", ":"))
                or (not f.code and prev == "}")  # a constructor body after `: member_{x}`
            )
            if code and f.code and f.paren == 0:
                f.start = None  # a control statement's block, or a lambda assigned whole
            stack.append(_Frame(code=code))
        elif t == "}":
            if len(stack) > 1:
                closed = stack.pop()
                outer = stack[-1]
                if closed.code and outer.code and outer.paren == 0:
                    outer.start = None
        elif t == ";" and f.code and f.paren == 0:
            if f.start is not None:
                spans.append((f.start, k))
            f.start = None
    return spans


def _is_declaration(toks: list[Token]) -> bool:
    """Two names side by side before the first `=`, `(`, `{` or `[` make a declaration:
    `int n`, `std::vector<int> v`, `Node* next`."""
    prev = None
    for tok in toks:
        if tok.text in ("=", "(", "{", "[", ";", ".", "->", "++", "--", "+=", "-=", "*=", "/=", "<<"):
            return False
        if _is_name(tok) and prev is not None and (_is_name(prev) or prev.text in (">", ">>", "*", "&", "&&")):
            return True
        prev = tok
    return False


def _deletable(toks: list[Token], first: int, last: int) -> int | None:
    """The first token of a removable statement in toks[first..last], or None. Case labels
    are kept; declarations, control statements and value returns are not removed."""
    while toks[first].text in ("case", "default"):
        for j in range(first, last):
            if toks[j].text == ":":
                first = j + 1
                break
        else:
            return None
        if first >= last:
            return None
    head = toks[first].text
    if head == "return":
        return first if toks[first + 1].text == ";" else None
    if head in ("break", "continue", "throw"):
        return first
    if head in _NOT_STATEMENTS or head in (";", "{", "}") or _is_declaration(toks[first:last + 1]):
        return None
    return first


def _deletion_span(text: str, start: int, end: int) -> tuple[int, int]:
    """Widen a statement to its whole line(s) when nothing else shares them, so a deletion
    leaves no blank line behind."""
    line_begin = text.rfind("\n", 0, start) + 1
    line_end = text.find("\n", end)
    line_end = len(text) if line_end < 0 else line_end
    if text[line_begin:start].strip() == "" and text[end:line_end].strip() == "":
        return line_begin, min(len(text), line_end + 1)
    return start, end


# --- generation --------------------------------------------------------------------------


class _Lines:
    def __init__(self, text: str):
        self.starts = [0] + [m.end() for m in re.finditer("\n", text)]

    def position(self, offset: int) -> tuple[int, int]:
        line = bisect.bisect_right(self.starts, offset)
        return line, offset - self.starts[line - 1] + 1


def mutants_of_source(text: str, file: str, operators: Iterable[Operator] | None = None) -> list[Mutant]:
    """Every mutant of one file's text, in file order (then by operator), duplicates (two
    changes giving the same text) removed."""
    wanted = set(operators or Operator)
    toks = code_tokens(text)
    lines = _Lines(text)
    found: list[Mutant] = []

    def add(op: Operator, start: int, end: int, replacement: str, at: int | None = None) -> None:
        if op not in wanted:
            return
        line, col = lines.position(start if at is None else at)
        found.append(Mutant(operator=op, file=file, line=line, column=col, start=start, end=end,
                            original=text[start:end], replacement=replacement))

    templates = _template_brackets(toks)
    for i, new, op in _operator_sites(toks, templates):
        if op is Operator.logical:
            swap = _logical_swap(text, toks, i, new)
            if swap is not None:
                add(op, *swap, at=toks[i].start)
        else:
            add(op, toks[i].start, toks[i].end, new)
    for tok, new, op in _constant_sites(toks):
        add(op, tok.start, tok.end, new)
    for first, last in _condition_sites(toks):
        cond = text[first.start:last.end]
        add(Operator.negate, first.start, last.end, f"!({cond})")
    for first_i, last_i in _statement_spans(toks):
        begin = _deletable(toks, first_i, last_i)
        if begin is not None:
            start, end = _deletion_span(text, toks[begin].start, toks[last_i].end)
            add(Operator.delete, start, end, "", at=toks[begin].start)

    order = list(Operator)
    found.sort(key=lambda m: (m.start, order.index(m.operator), m.end, m.replacement))
    seen: set[str] = set()
    unique = []
    for m in found:
        digest = sha256_text(m.mutate_text(text))
        if digest not in seen:
            seen.add(digest)
            unique.append(m)
    return unique


def generate_mutants(
    files: Mapping[str, bytes],
    *,
    operators: Iterable[Operator] | None = None,
    cap: int | None = None,
    seed: int = 0,
) -> list[Mutant]:
    """Mutants of every C++ file among `files` (other files are left alone), ordered by file
    name then position. With `cap`, a sample of at most that many, drawn with `seed` and
    kept in the same order, so the same inputs always give the same list."""
    ops = list(operators) if operators is not None else None
    out: list[Mutant] = []
    for name in sorted(files):
        if is_cpp_file(name):
            out.extend(mutants_of_source(_decode(files[name]), name, ops))
    return sample(out, cap, seed)


_TEST_MACROS = frozenset({"TEST_CASE", "TEST_CASE_METHOD", "SCENARIO", "TEMPLATE_TEST_CASE",
                          "TEMPLATE_TEST_CASE_SIG", "TEMPLATE_PRODUCT_TEST_CASE"})
_DIRECTIVE_WORD = re.compile(r"#\s*(\w+)\s*(.*)", re.S)


def _pp_condition(expr: str, defined: frozenset[str]) -> bool:
    """The value of an #if expression with only `defined` macros set: enough of the
    preprocessor's arithmetic for the conditions test files use. What it cannot read
    counts as true."""
    expr = re.sub(r"//.*|/\*.*?\*/", " ", expr.replace("\\\n", " "))
    expr = re.sub(r"defined\s*\(\s*(\w+)\s*\)|defined\s+(\w+)",
                  lambda m: " 1 " if (m.group(1) or m.group(2)) in defined else " 0 ", expr)
    expr = re.sub(r"\b(\d+)[uUlL]*\b", r"\1", expr)
    expr = re.sub(r"\btrue\b", "1", expr)
    expr = re.sub(r"\b__cplusplus\b", "201703", expr)  # the suites are C++17
    expr = re.sub(r"\b[A-Za-z_]\w*\b", "0", expr)  # an undefined macro is 0 in #if
    expr = expr.replace("&&", " and ").replace("||", " or ")
    expr = re.sub(r"!(?!=)", " not ", expr)
    if not re.fullmatch(r"[\d\s()<>=!+\-*/%andot]*", expr):
        return True
    try:
        return bool(eval(expr, {"__builtins__": {}}, {}))  # digits and operators only, checked above
    except Exception:
        return True


def count_test_cases(source: bytes, defined: Iterable[str] = ("EXERCISM_RUN_ALL_TESTS",)) -> int:
    """How many Catch2 test cases a test file compiles to when the harness builds it (every
    test enabled, nothing else defined): the test macros used as code, outside comments,
    strings, and conditional blocks that are switched off (a benchmark, say)."""
    macros = frozenset(defined)
    toks = tokenize(_decode(source))
    # One entry per open conditional: (enclosing block active, a branch was taken, this
    # branch active).
    stack: list[tuple[bool, bool, bool]] = []
    active = True
    count = 0
    for i, tok in enumerate(toks):
        if tok.kind == "pp":
            m = _DIRECTIVE_WORD.match(tok.text)
            word, rest = (m.group(1), m.group(2).strip()) if m else ("", "")
            if word in ("if", "ifdef", "ifndef"):
                if word == "if":
                    cond = _pp_condition(rest, macros)
                else:
                    cond = (rest.split()[0] if rest else "") in macros
                    cond = cond if word == "ifdef" else not cond
                stack.append((active, cond, active and cond))
            elif word in ("elif", "else") and stack:
                outer, taken, _ = stack[-1]
                cond = not taken and (word == "else" or _pp_condition(rest, macros))
                stack[-1] = (outer, taken or cond, outer and cond)
            elif word == "endif" and stack:
                stack.pop()
            active = stack[-1][2] if stack else True
            continue
        if not active or tok.kind != "ident" or tok.text not in _TEST_MACROS:
            continue
        nxt = next((t for t in toks[i + 1:i + 3] if t.kind != "comment"), None)
        if nxt is not None and nxt.text == "(":
            count += 1
    return count
