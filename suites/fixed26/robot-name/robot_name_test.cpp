#include "robot_name.h"

#include <catch2/catch.hpp>

#include <string>
#include <unordered_set>

namespace {

bool is_robot_name(const std::string& name) {
    auto between = [](char c, char low, char high) { return c >= low && c <= high; };
    return name.size() == 5 && between(name[0], 'A', 'Z') && between(name[1], 'A', 'Z') &&
           between(name[2], '0', '9') && between(name[3], '0', '9') && between(name[4], '0', '9');
}

}  // namespace

TEST_CASE("a new robot has a name of two letters and three digits", "[has-a-name]") {
    const robot_name::robot robot;

    REQUIRE(is_robot_name(robot.name()));
}

#if defined(EXERCISM_RUN_ALL_TESTS)
TEST_CASE("the name stays the same between calls", "[same-name]") {
    const robot_name::robot robot;

    REQUIRE(robot.name() == robot.name());
}

TEST_CASE("two robots get different names", "[different-robots]") {
    const robot_name::robot first;
    const robot_name::robot second;

    REQUIRE(first.name() != second.name());
}

TEST_CASE("a reset gives the robot a new name", "[reset]") {
    robot_name::robot robot;
    const std::string before = robot.name();

    robot.reset();

    REQUIRE(robot.name() != before);
}

TEST_CASE("a thousand resets never repeat a name", "[many-resets]") {
    robot_name::robot robot;
    std::unordered_set<std::string> seen{robot.name()};

    for (int i = 0; i < 1000; ++i) {
        robot.reset();
        REQUIRE(is_robot_name(robot.name()));
        REQUIRE(seen.insert(robot.name()).second);
    }
}
#endif
