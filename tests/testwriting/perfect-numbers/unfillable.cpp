// Placeholders the harness cannot fill, and one it can: the suite keeps the ones it cannot
// (each with the reason), so it does not compile.
#include "perfect_numbers.h"

#include <catch2/catch.hpp>

TEST_CASE("one placeholder, two values") {
    for (int n : {6, 12}) {
        REQUIRE(perfect_numbers::classify(n) == FILL);
    }
}

TEST_CASE("not an expected value") {
    const auto expected = FILL;
    static_cast<void>(expected);
}

TEST_CASE("never reached") {
    if (perfect_numbers::classify(6) != perfect_numbers::classification::perfect) {
        REQUIRE(perfect_numbers::classify(28) == FILL);
    }
}

TEST_CASE("throws on the correct solution") {
    REQUIRE(perfect_numbers::classify(0) == FILL);
}

TEST_CASE("fillable") {
    REQUIRE(perfect_numbers::classify(6) == FILL);
}
