#include <catch2/catch.hpp>

#include "sum_of_squares.h"

TEST_CASE("sum of nothing is zero", "[a1]") {
    REQUIRE(sum_of_squares::sum(0) == 0);
}
