#include "zebra_puzzle.h"

#include <catch2/catch.hpp>

// As on the track, both cases run whether or not EXERCISM_RUN_ALL_TESTS is set.

TEST_CASE("resident who drinks water", "[16efb4e4-8ad7-4d5e-ba96-e5537b66fd42]") {
    const zebra_puzzle::Solution solution = zebra_puzzle::solve();

    SECTION("the water drinker is Norwegian") { REQUIRE(solution.drinksWater == "Norwegian"); }
}

TEST_CASE("resident who owns zebra", "[084d5b8b-24e2-40e6-b008-c800da8cd257]") {
    const zebra_puzzle::Solution solution = zebra_puzzle::solve();

    SECTION("the zebra owner is Japanese") { REQUIRE(solution.ownsZebra == "Japanese"); }
}
