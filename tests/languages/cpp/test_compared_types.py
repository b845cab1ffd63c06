"""What the tests compare, read from `nm -C` of a test unit: a solution type the reference
never compares is found, a standard or built-in type in its place is not."""

from __future__ import annotations

from harness.languages.cpp.compared_types import operand_types, unexpected

STRING = "std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char> >"
REFERENCE_NM = f"""\
0000000000000000 W Catch::BinaryExpr<{STRING} const&, char const (&) [11]>::~BinaryExpr()
0000000000000000 W Catch::ExprLhs<{STRING} const&> Catch::Decomposer::operator<=<{STRING} >({STRING} const&)
                 U Catch::StringRef::StringRef(char const*)
0000000000000000 W Catch::UnaryExpr<bool const&>::streamReconstructedExpression(std::ostream&) const
"""
PROXY_NM = """\
0000000000000000 W Catch::BinaryExpr<phone_number::anything const&, char const (&) [11]>::~BinaryExpr()
0000000000000000 W Catch::ExprLhs<phone_number::anything const&>::ExprLhs(phone_number::anything const&)
0000000000000000 V typeinfo for Catch::BinaryExpr<phone_number::anything const&, char const (&) [11]>
"""


def test_operand_types_are_the_template_arguments_of_decomposed_assertions():
    assert operand_types(REFERENCE_NM) == {f"{STRING} const&", "char const (&) [11]", "bool const&"}


def test_a_type_of_the_solutions_own_in_place_of_the_references_is_unexpected():
    assert unexpected(operand_types(PROXY_NM), operand_types(REFERENCE_NM)) == ["phone_number::anything const&"]


def test_standard_and_builtin_types_in_place_of_the_references_are_not():
    honest = "W Catch::BinaryExpr<long const&, std::basic_string_view<char, std::char_traits<char> > const&>::~BinaryExpr()"
    assert unexpected(operand_types(honest), operand_types(REFERENCE_NM)) == []


def test_a_solution_type_the_reference_compares_too_is_not():
    clock = "W Catch::BinaryExpr<date_independent::clock const&, date_independent::clock const&>::~BinaryExpr()"
    assert unexpected(operand_types(clock), operand_types(clock)) == []


def test_a_solution_type_inside_a_standard_template_is_unexpected():
    wrapped = "W Catch::ExprLhs<std::optional<phone_number::anything> const&>::ExprLhs()"
    assert unexpected(operand_types(wrapped), set()) == ["std::optional<phone_number::anything> const&"]


def test_a_cut_line_gives_no_operand():
    assert operand_types("W Catch::BinaryExpr<std::vector<int, std::alloc") == set()
