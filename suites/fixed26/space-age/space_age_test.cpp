#include "space_age.h"

#include <catch2/catch.hpp>

using Catch::Matchers::WithinAbs;

namespace {

constexpr double tolerance = 0.005;

}  // namespace

TEST_CASE("age in seconds", "[age-in-seconds]") {
    const space_age::space_age age(1000000);

    REQUIRE(age.seconds() == 1000000);
}

#if defined(EXERCISM_RUN_ALL_TESTS)
TEST_CASE("age on Earth", "[84f609af-5a91-4d68-90a3-9e32d8a5cd34]") {
    const space_age::space_age age(1000000000);

    REQUIRE_THAT(age.on_earth(), WithinAbs(31.69, tolerance));
}

TEST_CASE("age on Mercury", "[ca20c4e9-6054-458c-9312-79679ffab40b]") {
    const space_age::space_age age(2134835688);

    REQUIRE_THAT(age.on_earth(), WithinAbs(67.65, tolerance));
    REQUIRE_THAT(age.on_mercury(), WithinAbs(280.88, tolerance));
}

TEST_CASE("age on Venus", "[502c6529-fd1b-41d3-8fab-65e03082b024]") {
    const space_age::space_age age(189839836);

    REQUIRE_THAT(age.on_earth(), WithinAbs(6.02, tolerance));
    REQUIRE_THAT(age.on_venus(), WithinAbs(9.78, tolerance));
}

TEST_CASE("age on Mars", "[9ceadf5e-a0d5-4388-9d40-2c459227ceb8]") {
    const space_age::space_age age(2329871239);

    REQUIRE_THAT(age.on_earth(), WithinAbs(73.83, tolerance));
    REQUIRE_THAT(age.on_mars(), WithinAbs(39.25, tolerance));
}

TEST_CASE("age on Jupiter", "[42927dc3-fe5e-4f76-a5b5-f737fc19bcde]") {
    const space_age::space_age age(901876382);

    REQUIRE_THAT(age.on_earth(), WithinAbs(28.58, tolerance));
    REQUIRE_THAT(age.on_jupiter(), WithinAbs(2.41, tolerance));
}

TEST_CASE("age on Saturn", "[8469b332-7837-4ada-b27c-00ee043ebcad]") {
    const space_age::space_age age(3000000000);

    REQUIRE_THAT(age.on_earth(), WithinAbs(95.06, tolerance));
    REQUIRE_THAT(age.on_saturn(), WithinAbs(3.23, tolerance));
}

TEST_CASE("age on Uranus", "[999354c1-76f8-4bb5-a672-f317b6436743]") {
    const space_age::space_age age(3210123456);

    REQUIRE_THAT(age.on_earth(), WithinAbs(101.72, tolerance));
    REQUIRE_THAT(age.on_uranus(), WithinAbs(1.21, tolerance));
}

TEST_CASE("age on Neptune", "[80096d30-a0d4-4449-903e-a381178355d8]") {
    const space_age::space_age age(8210123456);

    REQUIRE_THAT(age.on_earth(), WithinAbs(260.16, tolerance));
    REQUIRE_THAT(age.on_neptune(), WithinAbs(1.58, tolerance));
}
#endif
