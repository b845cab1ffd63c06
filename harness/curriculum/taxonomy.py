"""What kind of failure a TestReport shows, read from the compiler's diagnostics and the
tests' outcomes, and whether a second report shows the same failure.

A compile error is named by its first diagnostic (the root cause; later errors usually
follow from it). A failed test run is named by its first failing test, except that failures
confined to boundary cases (the empty input, zero, one element, the largest value) are
told apart from wrong values in general. The rules are heuristics over gcc's wording,
Catch2's messages and, for Python, the exception pytest reports for the first failing test
(or for the test file that did not import): Python has no compile step, so a module that
does not import, and a name, signature or type error in a test, take the compile kinds
that C++'s compiler would have found them as. `detail` keeps the line each decision was
made from, so a reader can check it."""

from __future__ import annotations

import re
import sys
from enum import Enum

from ..records import Record, Status, TestCaseResult, TestReport


class FailureKind(str, Enum):
    missing_include = "missing-include"          # a standard name used without its header
    missing_declaration = "missing-declaration"  # a name not declared where it is used
    missing_definition = "missing-definition"    # declared, never defined: the linker fails
    signature_mismatch = "signature-mismatch"    # a call or definition that fits no declaration
    type_error = "type-error"                    # a conversion or operator the types do not allow
    syntax_error = "syntax-error"
    warning_as_error = "warning-as-error"        # the build's -Werror turned a warning into a failure
    other_compile_error = "other-compile-error"
    wrong_exception = "wrong-exception"          # thrown when it should not be, not thrown, or the wrong type
    wrong_value_boundary = "wrong-value-boundary"  # wrong results only on boundary cases
    wrong_value = "wrong-value"
    timeout = "timeout"                          # the build or the tests ran out of time
    crash = "crash"                              # killed by a signal, or stopped before every test ran
    forged = "forged"                            # the judge overruled it (TestReport.forgery): never run


COMPILE_KINDS = frozenset({
    FailureKind.missing_include, FailureKind.missing_declaration, FailureKind.missing_definition,
    FailureKind.signature_mismatch, FailureKind.type_error, FailureKind.syntax_error,
    FailureKind.warning_as_error, FailureKind.other_compile_error,
})


class Failure(Record):
    kind: FailureKind
    detail: str  # the diagnostic line or the failing tests the kind was read from


# Each rule reads one diagnostic line (gcc's wording, as the sandbox image's compiler
# prints it: in a UTF-8 locale gcc quotes names with ‘’, in the C locale with '').
# Checked in this order, so the most specific reading wins.
_COMPILE_RULES: list[tuple[FailureKind, re.Pattern]] = [
    (FailureKind.missing_include, re.compile(
        r"is not a member of ['‘]std['’]|in namespace ['‘]std['’] does not name a (?:template )?type"
        r"|did you forget to ['‘]#include"
        r"|is defined in header|fatal error: .*: No such file or directory")),
    (FailureKind.warning_as_error, re.compile(r"\[-Werror(?:=[\w+-]+)?\]")),
    (FailureKind.missing_definition, re.compile(r"undefined reference to|ld returned \d+ exit status")),
    (FailureKind.signature_mismatch, re.compile(
        r"too (?:few|many) arguments|no matching (?:member )?function for call|ambiguating new declaration"
        r"|conflicting declaration|no declaration matches|does not match any in class|cannot be overloaded"
        r"|redeclared as different kind|candidate expects|call of overloaded .* is ambiguous"
        r"|declared void|return type specification for")),
    (FailureKind.type_error, re.compile(
        r"cannot convert|invalid conversion|could not convert|no match for ['‘]operator|invalid operands"
        r"|incompatible types|cannot bind|invalid initialization of|discards qualifiers|binding reference of type"
        r"|which is of non-class type|assignment of read-only|invalid cast|narrowing conversion"
        r"|is not a class, namespace, or enumeration|cannot be used as a function|lvalue required")),
    (FailureKind.missing_declaration, re.compile(
        r"was not declared in this scope|has not been declared|is not a member of|has no member named"
        r"|does not name a (?:template )?type|is not a (?:template|type)|not declared|incomplete type"
        r"|is not a namespace")),
    (FailureKind.syntax_error, re.compile(
        r"expected .*(?:before|at end of input|after)|expected (?:primary-expression|unqualified-id|declaration)"
        r"|stray ['‘]|missing terminating|unterminated|extra qualification")),
]

_ERROR_LINE = re.compile(r"\berror\b|undefined reference to", re.I)


def _compile_failure(message: str) -> Failure:
    lines = [ln.strip() for ln in message.splitlines() if ln.strip()]
    errors = [ln for ln in lines if _ERROR_LINE.search(ln)]
    for line in errors[:1] or lines[:1]:
        for kind, rule in _COMPILE_RULES:
            if rule.search(line):
                return Failure(kind=kind, detail=line)
    # The first error line said nothing a rule knows; a missing header is often only in a
    # note after it, and a linker failure in its last line.
    for kind, rule in _COMPILE_RULES[:3]:
        hit = next((ln for ln in lines if rule.search(ln)), None)
        if hit is not None:
            return Failure(kind=kind, detail=hit)
    return Failure(kind=FailureKind.other_compile_error, detail=(errors or lines or ["(no compiler output)"])[0])


# A Python exception as pytest reports it: the first line of a test's message, or a line
# `E   Name: text` of the traceback of a test file that did not import.
_PY_EXCEPTION = re.compile(r"^(?:E +)?(?:[A-Za-z_][\w]*\.)*([A-Z]\w*(?:Error|Exception|Exit)|CallTimeout|ServerGone|Failed)"
                           r"(?::(.*))?$", re.M)
_SIGNATURE = re.compile(r"positional argument|keyword argument|takes \d+|required (?:positional|keyword)|"
                        r"arguments? but \d+")
_NAME_ERROR = re.compile(r"name '(\w+)' is not defined")
_NOT_RAISED = re.compile(r"DID NOT RAISE|not raised")
_PY_KINDS = {
    "SyntaxError": FailureKind.syntax_error, "IndentationError": FailureKind.syntax_error,
    "TabError": FailureKind.syntax_error, "ModuleNotFoundError": FailureKind.missing_include,
    "ImportError": FailureKind.missing_declaration, "AttributeError": FailureKind.missing_declaration,
    "UnboundLocalError": FailureKind.missing_declaration, "CallTimeout": FailureKind.timeout,
    "ServerGone": FailureKind.crash, "RecursionError": FailureKind.crash, "MemoryError": FailureKind.crash,
}


def _python_failure(test: TestCaseResult) -> Failure | None:
    """The kind a Python exception names, for a test (or a test file) that failed with one
    other than a plain assertion's; None for a message that is not pytest's."""
    text = test.message or ""
    if ".py::" in test.name:  # a test's node id: its message starts with what it raised
        found = _PY_EXCEPTION.match(text.split("\n", 1)[0])
    elif text.startswith("collection failure"):  # the file did not import: its traceback's last exception
        found = next(reversed(list(_PY_EXCEPTION.finditer(text))), None)
    else:
        return None
    if found is None:
        return None
    name, line = found.group(1), found.group(0).removeprefix("E").strip()
    detail = f"{test.name}: {line}"
    if name == "AssertionError" or name == "Failed":
        return Failure(kind=FailureKind.wrong_exception, detail=detail) if _NOT_RAISED.search(line) else None
    if name == "NameError":
        missing = _NAME_ERROR.search(line)
        standard = missing is not None and missing.group(1) in sys.stdlib_module_names
        return Failure(kind=FailureKind.missing_include if standard else FailureKind.missing_declaration, detail=detail)
    if name == "TypeError":
        return Failure(kind=FailureKind.signature_mismatch if _SIGNATURE.search(line) else FailureKind.type_error,
                       detail=detail)
    # Anything else the code raised where the test did not expect it.
    return Failure(kind=_PY_KINDS.get(name, FailureKind.wrong_exception), detail=detail)


_EXCEPTION = re.compile(r"_THROWS|_NOTHROW|unexpected exception")
# Words test names use for boundary cases.
_BOUNDARY = re.compile(
    r"\b(zero|empty|nothing|none|no|single|one|negative|minimum|maximum|min|max|smallest|largest|lowest"
    r"|highest|boundary|edge|limit|overflow|underflow|exactly|only|leap|last)\b", re.I)


def _words(name: str) -> str:
    """A test's name as words: a pytest node id's test, its underscores spaces."""
    if ".py::" not in name:
        return name
    return name.rsplit("::", 1)[-1].replace("_", " ")


def classify(report: TestReport) -> Failure:
    """The kind of failure a report shows. Call it only on a report that did not pass."""
    if report.passed:
        raise ValueError("a report that passed shows no failure")
    if report.forged:
        return Failure(kind=FailureKind.forged, detail=report.forgery[0] if report.forgery else "forged")
    if report.timeout:
        return Failure(kind=FailureKind.timeout, detail=(report.message or "timed out").strip().splitlines()[0])
    if not report.built:
        return _compile_failure(report.message or "")
    failing = report.failing()
    python = _python_failure(failing[0]) if failing else None
    if python is not None:
        return python
    if report.status is Status.error:
        return Failure(kind=FailureKind.crash, detail=(report.message or "the test binary failed").strip().splitlines()[0])
    first = failing[0]
    if _EXCEPTION.search(first.message or ""):
        return Failure(kind=FailureKind.wrong_exception, detail=f"{first.name}: {_first_line(first.message)}")
    value_failures = [t for t in failing if not _EXCEPTION.search(t.message or "")]
    boundary = len(failing) < len(report.tests) and all(_BOUNDARY.search(_words(t.name)) for t in value_failures)
    kind = FailureKind.wrong_value_boundary if boundary else FailureKind.wrong_value
    names = ", ".join(t.name for t in failing[:3]) + (f" and {len(failing) - 3} more" if len(failing) > 3 else "")
    return Failure(kind=kind, detail=names)


def _first_line(text: str | None) -> str:
    return (text or "failed").strip().splitlines()[0]


def describe(report: TestReport) -> str:
    """One line on how a report failed, for reasons and listings."""
    if report.passed:
        return "every test passes"
    failure = classify(report)
    if failure.kind in COMPILE_KINDS:
        return f"compile error ({failure.kind.value}: {failure.detail})"
    if failure.kind is FailureKind.timeout:
        return "a timeout"
    if failure.kind is FailureKind.forged:
        return f"forged ({failure.detail})"
    names = sorted(t.name for t in report.failing())
    return f"{failure.kind.value} in {len(names)} test(s): " + ", ".join(names[:4]) + (" ..." if len(names) > 4 else "")


def same_failure(expected: TestReport, got: TestReport) -> str | None:
    """None when `got` fails the way `expected` did: a compile error of the same kind, a
    timeout again, or the same set of failing tests. Otherwise how it differs."""
    if got.passed:
        return "the starting code passes every test"
    if expected.timeout:
        return None if got.timeout else f"recorded a timeout, got {describe(got)}"
    if not expected.built:
        if got.built:
            return f"recorded a compile error, but it builds: {describe(got)}"
        want_kind, have_kind = classify(expected).kind, classify(got).kind
        return None if want_kind is have_kind else f"recorded a {want_kind.value} compile error, got {have_kind.value}"
    if got.timeout or not got.built:
        return f"recorded failing tests, got {describe(got)}"
    want = sorted(t.name for t in expected.failing())
    have = sorted(t.name for t in got.failing())
    if want == have:
        return None
    missing, extra = sorted(set(want) - set(have)), sorted(set(have) - set(want))
    parts = []
    if missing:
        parts.append("no longer fails " + ", ".join(missing[:3]))
    if extra:
        parts.append("also fails " + ", ".join(extra[:3]))
    return "failing tests differ: " + "; ".join(parts)
