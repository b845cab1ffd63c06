#include <catch2/catch.hpp>

#include <stdexcept>

#include "sum_of_squares.h"

TEST_CASE("sum of nothing is zero", "[a1]") {
    REQUIRE(sum_of_squares::sum(0) == 0);
}

#if defined(EXERCISM_RUN_ALL_TESTS)
TEST_CASE("sum of the first ten", "[a2]") {
    REQUIRE(sum_of_squares::sum(10) == 385);
}

TEST_CASE("sum of the first hundred", "[a3]") {
    REQUIRE(sum_of_squares::sum(100) == 338350);
}

TEST_CASE("negative input is rejected", "[a4]") {
    REQUIRE_THROWS_AS(sum_of_squares::sum(-1), std::domain_error);
}
#endif
