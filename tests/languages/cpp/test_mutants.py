"""The C++ mutant generator on small snippets: what it changes, what it must never touch,
and that its output is stable and its mutants mostly compile."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from harness.languages.mutation import Operator
from harness.languages.cpp.mutants import count_test_cases, generate_mutants, mutants_of_source

from tests.conftest import GOLDEN


def changes(src: str, op: Operator | None = None) -> list[tuple[str, str]]:
    return [(m.original, m.replacement) for m in mutants_of_source(src, "x.cpp") if op in (None, m.operator)]


def test_operator_swaps():
    src = "int f(int a, int b) {\n    return a + b * 2 - a / b;\n}\n"
    assert changes(src, Operator.arithmetic) == [("+", "-"), ("*", "/"), ("-", "+"), ("/", "*")]
    src = "bool f(int a, int b) {\n    return (a < b && a <= 3) == (b > a || b >= 1) || a != 2;\n}\n"
    assert changes(src, Operator.relational) == [
        ("<", "<="), ("<=", "<"), ("==", "!="), (">", ">="), (">=", ">"), ("!=", "==")]
    assert changes(src, Operator.logical) == [("&&", "||"), ("||", "&&"), ("||", "&&")]
    src = "void f(int& a) {\n    a += 2;\n    a /= 3;\n}\n"
    assert changes(src, Operator.arithmetic) == [("+=", "-="), ("/=", "*=")]


def test_logical_swaps_in_chains_keep_the_parentheses_gcc_asks_for():
    # `a || b || c` with one `||` made `&&` would mix the two unparenthesized, which
    # -Wall -Werror rejects; the operands the new operator binds are parenthesized.
    src = "bool f(int a, int b, int c) {\n    return a == 1 || b == 2 || c == 3;\n}\n"
    chain = "a == 1 || b == 2 || c == 3"
    assert changes(src, Operator.logical) == [
        (chain, "(a == 1 && b == 2) || c == 3"), (chain, "a == 1 || (b == 2 && c == 3)")]
    src = "bool g(int a, int b, int c) {\n    return f(a, b, c) && a > 0 && (b > 0 || c > 0);\n}\n"
    chain = "f(a, b, c) && a > 0 && (b > 0 || c > 0)"
    assert changes(src, Operator.logical) == [
        (chain, "(f(a, b, c) && a > 0) || (b > 0 || c > 0)"), (chain, "f(a, b, c) || (a > 0 && (b > 0 || c > 0))"),
        ("||", "&&")]
    m = mutants_of_source(src, "x.cpp", [Operator.logical])[1]
    assert (m.line, m.column) == (2, 23)  # where the swapped operator is


def test_constants_and_boundaries():
    src = "double f(int n) {\n    bool z = true;\n    return z ? n * 10 + 0 : 2.5;\n}\n"
    got = changes(src)
    assert ("true", "false") in got
    assert ("10", "11") in got and ("10", "9") in got and ("10", "0") in got
    assert ("0", "1") in got and ("0", "-1") not in got  # no negative literal from zero
    assert ("2.5", "3.5") in got and ("2.5", "1.5") in got and ("2.5", "0.0") in got
    # A float shifted below zero is parenthesized so `- 0.5` cannot become a decrement.
    assert ("0.5", "(-0.5)") in changes("double f() { return 1 - 0.5; }\n")


def test_negated_conditions_skip_the_init_statement():
    src = "int f(int n) {\n    if (int k = n * 2; k > 4) return 1;\n    while (n) --n;\n    return 0;\n}\n"
    assert [(o, r) for o, r in changes(src, Operator.negate)] == [("k > 4", "!(k > 4)"), ("n", "!(n)")]


def test_deletes_expression_statements_but_not_declarations_or_value_returns():
    src = (
        "#include <vector>\n"
        "void f(std::vector<int>& v, int& total) {\n"
        "    std::vector<int> copy = v;\n"
        "    int n = 0;\n"
        "    total = 0;\n"
        "    v.push_back(1);\n"
        "    for (int x : copy) { total += x; ++n; }\n"
        "    if (n == 0) throw n;\n"
        "    switch (n) { case 1: total = 1; break; default: return; }\n"
        "}\n"
    )
    deleted = [m.original.strip() for m in mutants_of_source(src, "x.cpp") if m.operator is Operator.delete]
    assert deleted == ["total = 0;", "v.push_back(1);", "total += x;", "++n;", "total = 1;", "break;", "return;"]
    # A statement alone on its line goes with its line, leaving no blank line behind.
    m = next(m for m in mutants_of_source(src, "x.cpp") if m.original.strip() == "total = 0;")
    assert m.original == "    total = 0;\n" and (m.line, m.column) == (5, 5)


def test_comments_strings_chars_and_directives_are_untouched():
    src = (
        '#include <vector>\n'
        '#define LIMIT (1 + 2)\n'
        '// a + b < c\n'
        '/* 3 * 4 == 12 */\n'
        'const char* f() { return "a + b < 1"; }\n'
        "char g() { return '+'; }\n"
        'const char* h() { return R"x(1 - 2 && 3)x"; }\n'
    )
    assert mutants_of_source(src, "x.h") == []


def test_template_brackets_are_not_relational_operators():
    src = (
        "#include <map>\n"
        "template <typename T = int>\n"
        "int f(std::map<int, std::vector<int>> m, double d, int a, int b) {\n"
        "    return static_cast<int>(d) + (a < b) + int(m.size() > 2);\n"
        "}\n"
    )
    assert changes(src, Operator.relational) == [("<", "<="), (">", ">=")]
    lines = [m.line for m in mutants_of_source(src, "x.h") if m.operator is Operator.relational]
    assert lines == [4, 4]


def test_operator_overloads_and_pointer_declarations_keep_their_tokens():
    src = (
        "struct P { int x; };\n"
        "bool operator<(const P& a, const P& b) { return a.x < b.x; }\n"
        "int g(const P* p, int&& r) { return p->x * r; }\n"
    )
    assert changes(src, Operator.relational) == [("<", "<=")]
    assert changes(src, Operator.arithmetic) == [("*", "/")]
    assert changes(src, Operator.logical) == []


def test_mutants_apply_to_their_own_file_only():
    files = {"a.h": b"int f(int a) { return a + 1; }\n", "notes.txt": b"1 + 1", "a.cpp": b"int g() { return 2; }\n"}
    mutants = generate_mutants(files)
    assert {m.file for m in mutants} == {"a.h", "a.cpp"}
    m = next(m for m in mutants if m.file == "a.h" and m.original == "+")
    out = m.apply(files)
    assert out["a.h"] == b"int f(int a) { return a - 1; }\n"
    assert out["a.cpp"] == files["a.cpp"] and out["notes.txt"] == files["notes.txt"]
    with pytest.raises(ValueError):
        m.apply({**files, "a.h": b"int f(int a) { return a; }\n"})


def test_order_is_deterministic_and_sampling_is_seeded():
    files = {f: (GOLDEN / "sum-of-squares" / ".meta" / f"example{f[-4:] if f.endswith('.cpp') else f[-2:]}").read_bytes()
             for f in ("sum_of_squares.cpp", "sum_of_squares.h")}
    every = generate_mutants(files)
    assert every == generate_mutants(files)
    assert [(m.file, m.start) for m in every] == sorted((m.file, m.start) for m in every)
    assert len(every) > 6
    sample = generate_mutants(files, cap=5, seed=3)
    assert sample == generate_mutants(files, cap=5, seed=3)
    assert len(sample) == 5 and all(m in every for m in sample)
    assert sample == [m for m in every if m in sample]  # kept in file order
    assert any(generate_mutants(files, cap=5, seed=s) != sample for s in range(4, 10))
    # No two mutants produce the same text.
    texts = {m.mutate_text(files[m.file].decode()) for m in every}
    assert len(texts) == len(every)


def test_count_test_cases_ignores_comments_strings_and_switched_off_blocks():
    src = b"""#include <catch2/catch.hpp>
// TEST_CASE("commented out")
TEST_CASE("one", "[a]") { REQUIRE(1 == 1); }
#if defined(EXERCISM_RUN_ALL_TESTS)
TEST_CASE("two") { REQUIRE(std::string("TEST_CASE(") != ""); }
/* TEST_CASE("three") */
TEST_CASE_METHOD(Fixture, "three") {}
#if defined(EXERCISM_INCLUDE_BENCHMARK)
TEST_CASE("benchmark") {}
#elif __cplusplus >= 201703L && !defined(SOMETHING)
TEST_CASE("four") {}
#else
TEST_CASE("not four") {}
#endif
#ifndef EXERCISM_RUN_ALL_TESTS
TEST_CASE("only when not all") {}
#endif
#endif
"""
    assert count_test_cases(src) == 4
    assert count_test_cases(src, defined=()) == 1
    assert count_test_cases(src, defined=("EXERCISM_RUN_ALL_TESTS", "EXERCISM_INCLUDE_BENCHMARK")) == 4


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("g++") is None, reason="needs a host g++")
def test_most_mutants_of_a_real_solution_compile(tmp_path):
    """The generator's heuristics (templates, declarations, braces) exist to avoid useless
    mutants; on a real solution nearly all must compile."""
    src = """#include <cstddef>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace demo {

template <typename T>
class Ring {
public:
    explicit Ring(std::size_t capacity) : items_{}, capacity_{capacity} {}
    void push(const T& value) {
        if (items_.size() >= capacity_) throw std::domain_error("full");
        items_.push_back(value);
    }
    T pop() {
        if (items_.empty()) throw std::domain_error("empty");
        T first = items_.front();
        items_.erase(items_.begin());
        return first;
    }
private:
    std::vector<T> items_;
    std::size_t capacity_;
};

inline int score(const std::string& word, const std::map<char, int>& points) {
    int total = 0;
    for (std::size_t i = 0; i < word.size(); ++i) {
        auto it = points.find(word[i]);
        if (it != points.end() && it->second > 0) total += it->second * 2;
        else total -= 1;
    }
    while (total > 100) { total /= 2; }
    return total == 0 ? -1 : total;
}

}  // namespace demo

int main() {
    demo::Ring<int> r(2);
    r.push(1);
    return demo::score("ab", {{'a', 1}}) + r.pop();
}
"""
    mutants = mutants_of_source(src, "demo.cpp")
    assert len(mutants) > 40
    bad = []
    for m in mutants:
        path = tmp_path / "demo.cpp"
        path.write_text(m.mutate_text(src))
        proc = subprocess.run(["g++", "-std=c++17", "-fsyntax-only", "-Wall", "-Wextra", "-Werror", str(path)],
                              capture_output=True, text=True)
        if proc.returncode != 0:
            bad.append(m.describe())
    assert len(bad) <= len(mutants) // 10, bad
