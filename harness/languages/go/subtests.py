"""A subtest's own test code, as Exercism's Go test runner shows it in results.json: for a
test written to the runner's subtest convention (a table of structs, then a `range` over it
whose first statement is `t.Run(tc.<name field>, func(t *testing.T) {...})`), the test
function with the table narrowed to the subtest's own struct, assigned to the loop's
variable at the top, and the loop replaced by the body of the function given to Run. A test
that does not follow the convention shows its whole function for every subtest, as the
runner does. Read from the task's test files alone, never from a run: a subtest's name only
picks the struct whose name field is that name (the runner's match: the name as written in
the source, or with its underscores read as the spaces `go test` turned into them)."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from ..token_screen import without_comments
from .screen import Token, tokens_or_none

_OPEN = {"{": "}", "(": ")", "[": "]"}
_TRAILING_COMMENT = re.compile(r"(?<=[,{])[ \t]+//[^\n]*")
_COMMENT_LINES = re.compile(r"\n(?:[ \t]*//[^\n]*\n)+")


@dataclass
class _Source:
    text: str
    code: list[Token]  # comments left out

    @classmethod
    def of(cls, text: str) -> _Source | None:
        tokens = tokens_or_none(text)
        return None if tokens is None else cls(text, without_comments(tokens))

    def close(self, i: int) -> int:
        """The index of the token that closes the bracket at `i`."""
        depth = 0
        for j in range(i, len(self.code)):
            token = self.code[j][1]
            if token in _OPEN:
                depth += 1
            elif token in ("}", ")", "]"):
                depth -= 1
                if depth == 0:
                    return j
        return len(self.code) - 1

    def words(self, i: int, *expected: str) -> bool:
        """Whether the tokens from `i` are `expected`, a `*` standing for any word."""
        got = self.code[i:i + len(expected)]
        return len(got) == len(expected) and all(
            (kind == "word") if want == "*" else token == want for (kind, token, _, _), want in zip(got, expected))

    def ranges(self, i: int) -> bool:
        """Whether the `for` at `i` is a range statement."""
        for kind, token, _, _ in self.code[i + 1:]:
            if token in ("{", "range"):
                return token == "range"
        return False

    def span(self, first: int, last: int) -> str:
        start = self.code[first][3]
        return self.text[start:self.code[last][3] + len(self.code[last][1])]

    def indent(self, i: int) -> int:
        """The tabs that open the line of token `i`."""
        line_start = self.text.rfind("\n", 0, self.code[i][3]) + 1
        line = self.text[line_start:]
        return len(line) - len(line.lstrip("\t"))


def _shifted(text: str, by: int) -> str:
    """`text`'s lines after its first moved `by` tabs (a piece of code set at another depth)."""
    lines = text.split("\n")
    moved = [("\t" * by + line) if by > 0 else line[min(-by, len(line) - len(line.lstrip("\t"))):] for line in lines[1:]]
    return "\n".join([lines[0], *(m if m.strip() else "" for m in moved)])


@dataclass
class _Table:
    """A table the loop ranges over: where it is, its element type, its field names in order."""

    source: _Source
    first: int       # its first token (`var` or the name)
    type_first: int  # the token after `[]`
    open: int        # the literal's `{`
    fields: list[str]


def _table(source: _Source, name: str, top_level: bool) -> _Table | None:
    for i in range(len(source.code)):
        if top_level and source.words(i, "var", name, "=", "[", "]"):
            at = i + 5
        elif not top_level and source.words(i, name, ":", "=", "[", "]"):
            at = i + 5
        else:
            continue
        fields: list[str] = []
        if source.words(at, "struct", "{"):
            end = source.close(at + 1)
            fields = _field_names(source, at + 2, end)
            open_at = end + 1
        else:
            open_at = at + 1
            while open_at < len(source.code) and source.code[open_at][1] != "{":
                open_at += 1
        if open_at < len(source.code) and source.code[open_at][1] == "{":
            return _Table(source, i, at, open_at, fields)
    return None


def _field_names(source: _Source, first: int, end: int) -> list[str]:
    names, line_start = [], True
    for i in range(first, end):
        kind, token, _, _ = source.code[i]
        if line_start and kind == "word":
            names.append(token)
            line_start = source.code[i + 1][1] == ","
        elif token == ";" or (i + 1 < end and source.code[i + 1][2] != source.code[i][2]):
            line_start = True
        else:
            line_start = line_start and token == ","
    return names


def _go_quote(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)


def _element(table: _Table, sub: str) -> tuple[int, int, str] | None:
    """The struct of the table whose string field is the subtest's name: its first and last
    token and the field's name."""
    source, wanted = table.source, {_go_quote(sub), _go_quote(sub.replace("_", " "))}
    i = table.open + 1
    end = source.close(table.open)
    while i < end:
        if source.code[i][1] == "{":
            last = source.close(i)
            for key, value in _values(source, i, last, table.fields):
                if source.code[value][0] == "string" and source.code[value][1] in wanted:
                    return i, last, key
            i = last
        i += 1
    return None


def _values(source: _Source, open_at: int, last: int, fields: list[str]) -> list[tuple[str, int]]:
    """(field, index of its value's first token) for each value of a struct literal."""
    out, i, n = [], open_at + 1, 0
    while i < last:
        if source.words(i, "*", ":") and i + 2 < last:
            out.append((source.code[i][1], i + 2))
            i += 2
        elif n < len(fields):
            out.append((fields[n], i))
        while i < last and source.code[i][1] != ",":
            i = source.close(i) + 1 if source.code[i][1] in _OPEN else i + 1
        i, n = i + 1, n + 1
    return out


def subtest_code(function: str, others: list[str], sub: str) -> str | None:
    """The subtest's code by the convention above, or None where the test does not follow
    it. `function` is the test function's text, `others` the text of every test file (where
    a table at package level may be)."""
    source = _Source.of(function)
    if source is None:
        return None
    body_open = next((i for i, t in enumerate(source.code) if t[1] == "{"), None)
    if body_open is None:
        return None
    loop = next((i for i in range(body_open + 1, source.close(body_open))  # the first range statement
                 if source.code[i][1] == "for" and source.indent(i) == 1 and source.ranges(i)), None)
    if loop is None or not source.words(loop, "for", "*", ",", "*", ":", "=", "range", "*", "{"):
        return None
    var, data, loop_open = source.code[loop + 3][1], source.code[loop + 7][1], loop + 8
    run = loop_open + 1
    if not (source.words(run, "*", ".", "Run", "(", var, ".", "*", ",", "func", "(")):
        return None
    field = source.code[run + 6][1]
    lit_open = source.close(run + 9) + 1
    while lit_open < len(source.code) and source.code[lit_open][1] != "{":
        lit_open += 1
    lit_close = source.close(lit_open)
    table = _table(source, data, top_level=False)
    local = table is not None
    for text in ([] if local else others):
        other = _Source.of(text)
        table = _table(other, data, top_level=True) if other is not None else None
        if table is not None:
            break
    if table is None:
        return None
    found = _element(table, sub)
    if found is None or found[2] != field:
        return None
    return _assemble(source, table, found, local, (body_open, loop, loop_open, lit_open, lit_close), var)


def _assemble(source: _Source, table: _Table, element: tuple[int, int, str], local: bool,
              at: tuple[int, int, int, int, int], var: str) -> str:
    body_open, loop, loop_open, lit_open, lit_close = at
    own = table.source
    kind = _shifted(own.span(table.type_first, table.open - 1), 1 - own.indent(table.first))
    struct = _shifted(own.span(element[0], element[1]), 1 - own.indent(element[0]))
    if not local:  # the runner prints a struct from another file without its comments
        struct = _COMMENT_LINES.sub("\n\n", _TRAILING_COMMENT.sub("", struct))
    assignment = f"{var} := {kind}{struct}"
    body = ""
    if lit_close > lit_open + 1:
        body = "\t" + _shifted(source.span(lit_open + 1, lit_close - 1), 1 - source.indent(lit_open + 1))
    before = source.text[:source.code[loop][3]].rstrip("\t")
    after = source.text[source.code[source.close(loop_open)][3] + 1:]
    if local:
        start, end = source.code[table.first][3], source.code[source.close(table.open)][3] + 1
        before = before[:start] + assignment + before[end:]
        return before.rstrip() + "\n\n" + body + "\n\n" + after.lstrip("\n").rstrip()
    head = source.text[:source.code[body_open][3] + 1]
    rest = before[len(head):].strip("\n")
    middle = f"\t{assignment}\n" + (f"{rest}\n" if rest else "") + "\n" + body
    return head + "\n" + middle + "\n\n" + after.lstrip("\n").rstrip()
