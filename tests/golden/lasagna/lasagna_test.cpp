#include <catch2/catch.hpp>

#include "lasagna.h"

TEST_CASE("the oven time is 40 minutes", "[task_1]") {
    REQUIRE(lasagna::expected_minutes_in_oven() == 40);
}

#if defined(EXERCISM_RUN_ALL_TESTS)
TEST_CASE("25 minutes in the oven leave 15", "[task_2]") {
    int actual = 25;
    REQUIRE(lasagna::remaining_minutes_in_oven(actual) == 15);
}

TEST_CASE("one layer takes 2 minutes", "[task_3]") {
    REQUIRE(lasagna::preparation_time_in_minutes(1) == 2);
}

TEST_CASE("four layers take 8 minutes", "[task_3]") {
    REQUIRE(lasagna::preparation_time_in_minutes(4) == 8);
}

TEST_CASE("three layers and 20 minutes in the oven make 26", "[task_4]") {
    REQUIRE(lasagna::elapsed_time_in_minutes(3, 20) == 26);
}

TEST_CASE("no layer and no time make nothing", "[task_3][task_4]") {
    REQUIRE(lasagna::elapsed_time_in_minutes(0, 0) == 0);
}

TEST_CASE("the oven time does not change") {
    REQUIRE(lasagna::expected_minutes_in_oven() == lasagna::expected_minutes_in_oven());
}
#endif
