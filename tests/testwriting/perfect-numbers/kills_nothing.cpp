// Valid but useless: it compiles against the interface and asserts nothing about behaviour.
#include "perfect_numbers.h"

#include <catch2/catch.hpp>

TEST_CASE("the classification has three values") {
    REQUIRE(perfect_numbers::classification::perfect != perfect_numbers::classification::abundant);
    REQUIRE(perfect_numbers::classification::deficient != perfect_numbers::classification::perfect);
}
