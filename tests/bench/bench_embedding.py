"""The figures behind testwriting/embedding.py's threshold: for every task of a suite, the
similarity (the largest share of one reference function body's token 8-grams found in the
suite) of honest suites and of suites that embed the reference:

  own tests          the task's own test file (honest);
  other honest       the written suites kept as fixtures under tests/testwriting/<task>/;
  pasted             the own tests with every reference file's code pasted after them;
  renamed            the same with every identifier renamed;
  in a string        the same code as a raw string literal (a suite comparing source text);
  largest body only  the own tests and the reference's largest function body alone;
  first half of it   the own tests and the first half of that body (no working copy).

Pure text, no sandbox. Prints a Markdown table and the extremes.

    .venv/bin/python tests/bench/bench_embedding.py [--suite fixed26]
"""

from __future__ import annotations

import argparse
from pathlib import Path

from harness.languages.cpp.files import is_cpp_file, is_source
from harness.languages.cpp.lexer import CPP_KEYWORDS, tokenize
from harness.suite import find_suite
from harness.testwriting.embedding import _grams, _words, function_bodies, reference_similarity

FIXTURES = Path(__file__).resolve().parents[1] / "testwriting"
COLUMNS = ("own tests", "other honest", "pasted", "renamed", "in a string", "largest body only", "first half of it")


def renamed(source: str) -> str:
    out, pos = [], 0
    for t in tokenize(source):
        if t.kind == "ident" and t.text not in CPP_KEYWORDS and t.text != "std":
            out += [source[pos:t.start], "r_" + t.text[::-1]]
            pos = t.end
    return "".join(out + [source[pos:]])


def without_directives(source: str) -> str:
    return "\n".join(line for line in source.splitlines() if not line.lstrip().startswith("#"))


def row(task) -> list[float | None]:
    honest = task.read(next(f for f in task.test_files if is_source(f)))
    reference = {n: d.decode() for n, d in task.reference_files().items() if is_cpp_file(n)}
    code = "\n".join(without_directives(t) for t in reference.values())
    bodies = [(len(_grams(_words(b))), text[b[0].start:b[-1].end], b)
              for text in reference.values() for b in function_bodies(text) if b]
    _, largest, tokens = max(bodies, key=lambda b: b[0]) if bodies else (0, "", [])
    half = largest[:tokens[len(tokens) // 2].start - tokens[0].start] if tokens else ""
    others = [reference_similarity(task, p.read_bytes()) for p in sorted((FIXTURES / task.slug).glob("*.cpp"))]
    suites = [
        honest + f"\nnamespace copy {{\n{code}\n}}\n".encode(),
        honest + f"\nnamespace copy {{\n{renamed(code)}\n}}\n".encode(),
        honest + f'\nstatic const char* kReference = R"ref({code})ref";\n'.encode(),
        honest + f"\nvoid helper() {{\n{largest}\n}}\n".encode(),
        honest + f"\nvoid helper() {{\n{half}\n}}\n".encode(),
    ]
    return [reference_similarity(task, honest), max(others) if others else None,
            *(reference_similarity(task, s) for s in suites)]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--suite", default="fixed26")
    args = ap.parse_args()
    rows = {task.slug: row(task) for task in find_suite(args.suite).tasks}
    print("| task | " + " | ".join(COLUMNS) + " |")
    print("|---|" + "---|" * len(COLUMNS))
    for slug, values in rows.items():
        print(f"| {slug} | " + " | ".join("-" if v is None else f"{v:.2f}" for v in values) + " |")
    honest = [v for values in rows.values() for v in values[:2] if v is not None]
    copies = [values[i] for values in rows.values() for i in (2, 3, 4, 5) if values[i] > 0]
    nothing = [slug for slug, values in rows.items() if values[2] == 0]
    print(f"\nhonest suites: at most {max(honest):.2f}; whole copies: at least {min(copies):.2f}; "
          f"first halves: {min(v[6] for v in rows.values() if v[6]):.2f} to {max(v[6] for v in rows.values()):.2f}; "
          f"no body long enough to measure: {', '.join(nothing) or 'none'}")


if __name__ == "__main__":
    main()
