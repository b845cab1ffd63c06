"""A public case as a simulating judge is shown it (languages/cpp/probe/shown.py), on fixed26
tasks whose cases hold their expected values in each way the rewrite handles: the judge
gets the inputs and one observation per assertion, in the order the probe records them,
and the program it reads still computes what the case computes."""

from __future__ import annotations

from harness.languages.cpp.probe.cases import case_context, task_cases
from harness.languages.cpp.probe.shown import shown_cases
from harness.predict.public import public_cases
from harness.task import load_task

from tests.conftest import ROOT

FIXED26 = ROOT / "suites" / "fixed26"


def _shown(slug: str, names: list[str] | None = None):
    task = load_task(FIXED26 / slug)
    cases = public_cases(task) if names is None else [c for c in task_cases(task) if c.name in names]
    return shown_cases(case_context(task), [c.source for c in cases])


def test_an_assertion_becomes_an_observation_of_its_tested_side():
    shown = _shown("circular-buffer")
    assert shown.cases[2] == ('TEST_CASE("public case") {\n'
                              "    circular_buffer::circular_buffer<int> buffer(1);\n"
                              "    OBSERVE_THROWS(buffer.write(1));\n"
                              "    OBSERVE(buffer.read());\n"
                              "    OBSERVE_THROWS(buffer.read());\n"
                              "}")


def test_a_value_declared_only_to_be_expected_goes_and_inputs_stay():
    diamond = _shown("diamond").cases[0]
    assert diamond == 'TEST_CASE("public case") {\n    OBSERVE(diamond::rows(\'B\'));\n}'
    # queen-attack's expected pair is also the board's input: it stays, as the input.
    queens = _shown("queen-attack").cases[0]
    assert "const auto white = std::make_pair(2, 2);" in queens and "OBSERVE(board.white());" in queens


def test_a_helper_loses_the_parameters_that_fed_only_expected_sides():
    tree = _shown("binary-search-tree")
    assert "void check_node(const tree_ptr<T>& node) {\n    OBSERVE(node->data());" in tree.prelude
    assert "check_node<uint32_t>(tree);\n    check_node<uint32_t>(tree->left());" in tree.cases[1]
    # complex-numbers: one overload calls the other; both lose their expected parameters.
    names = ["Arithmetic -> Addition -> Add purely real numbers", "Real part -> Real part of a purely real number"]
    numbers = _shown("complex-numbers", names)
    assert "void require_near(double actual) {" in numbers.prelude
    assert "void require_near(const Complex& actual) {\n    require_near(actual.real());" in numbers.prelude
    assert "margin" not in numbers.prelude and "require_near(z1 + z2);" in numbers.cases[1]


def test_names_sections_and_comments_say_nothing():
    zebra = _shown("zebra-puzzle").cases[0]
    assert zebra == ('TEST_CASE("public case") {\n'
                     "    const zebra_puzzle::Solution solution = zebra_puzzle::solve();\n\n"
                     '    SECTION("1") { OBSERVE(solution.drinksWater); }\n}')
    assert "//" not in _shown("binary-search-tree").prelude
