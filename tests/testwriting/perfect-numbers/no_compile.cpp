// Does not compile: the function is classify, not categorize.
#include "perfect_numbers.h"

#include <catch2/catch.hpp>

TEST_CASE("six is perfect") {
    REQUIRE(perfect_numbers::categorize(6) == perfect_numbers::classification::perfect);
}
