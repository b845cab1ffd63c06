"""Correcting a written suite's wrong expected values by execution (testwriting/corrected.py):
which side of each equality assertion is the expected one, in C++ and in Python; the fill's
values compared without the types C++ casts them to; and, in the Docker sandbox, a pytest
suite with one wrong value corrected to one that holds on the correct solution, with only
that value changed. (C++'s correction of a real run's suites: test_testwriting_run.py.)"""

from __future__ import annotations

import pytest

from harness.languages.cpp.expected import comparisons as cpp_comparisons, value_key
from harness.languages.python.expected import comparisons as python_comparisons
from harness.languages.registry import language_for
from harness.testwriting.corrected import Corrected, NotCorrected, correct_values
from harness.testwriting.written import with_written_tests

from tests.conftest import make_backend
from tests.languages.python.tally import REFERENCE, TESTS, write_tally

CPP = '''TEST_CASE("x") {
    REQUIRE(classify(6) == classification::perfect);
    CHECK(12 == count("a == b", 3));  // a string's == is not the assertion's
    REQUIRE(a == b);
    REQUIRE(f(1) == 2 && g(2) == 3);
    REQUIRE(f(1) == FILL);
    REQUIRE_THROWS(f(-1));
}
'''


def sides(text: str, found) -> list[tuple[str, str]]:
    return [(text[c.expected[0]:c.expected[1]], text[c.actual[0]:c.actual[1]]) for c in found]


def test_the_expected_side_is_the_one_without_a_call_else_the_right_one():
    assert sides(CPP, cpp_comparisons(CPP)) == [("classification::perfect", "classify(6)"),
                                                ("12", 'count("a == b", 3)'), ("b", "a")]
    py = 'def test_x(self):\n    assert "x" == g(2)\n    self.assertEqual(f(1), [1, 2])\n    assert a == b\n' \
         '    assert f(1) == FILL\n    assert f(1) != 2\n'
    assert sides(py, python_comparisons(py)) == [('"x"', "g(2)"), ("[1, 2]", "f(1)"), ("b", "a")]
    assert python_comparisons("def broken(:\n") == []


def test_cpp_values_are_compared_without_the_type_they_are_cast_to():
    a = "::harness_fill::number<std::decay_t<decltype(classify(12))>>(2)"
    b = "::harness_fill::number<std::decay_t<decltype(classification::perfect)>>(2)"
    assert value_key(a) == value_key(b) != value_key(b.replace("(2)", "(1)"))


@pytest.mark.docker
@pytest.mark.slow
def test_a_pytest_suite_with_one_wrong_value_is_corrected_to_hold_on_the_reference(tmp_path):
    task = write_tally(tmp_path)
    wrong = TESTS.replace("assert add(2, 3) == 5", "assert add(2, 3) == 6")
    with make_backend("docker").session("corrected") as session:
        got = correct_values(task, wrong.encode(), session)
        assert isinstance(got, Corrected) and (got.replaced, got.comparisons) == (1, 3)
        assert got.source.decode() == TESTS  # only the wrong value changed, to the reference's
        written = with_written_tests(task, got.source)
        assert language_for(written).run_tests(written, {"tally.py": REFERENCE.encode()}, session).passed
        right = correct_values(task, TESTS.encode(), session)
    assert isinstance(right, NotCorrected) and "every compared value is right" in right.why
