// Does not compile: a missing semicolon.
#include "allergies.h"

#include <catch2/catch.hpp>

TEST_CASE("allergic to eggs") {
    REQUIRE(allergies::allergy_test(1).is_allergic_to("eggs"))
}
