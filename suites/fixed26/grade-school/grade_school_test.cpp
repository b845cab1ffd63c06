#include "grade_school.h"

#include <catch2/catch.hpp>

#include <map>
#include <string>
#include <vector>

using roster_type = std::map<int, std::vector<std::string>>;

TEST_CASE("Roster is empty when no student is added", "[a3f0fb58-f240-4723-8ddc-e644666b85cc]") {
    const grade_school::school school{};
    REQUIRE(school.roster().empty());
}

#if defined(EXERCISM_RUN_ALL_TESTS)

TEST_CASE("Student is added to the roster", "[6d0a30e4-1b4e-472e-8e20-c41702125667]") {
    grade_school::school school{};
    school.add("Aimee", 2);
    const auto actual = school.roster();
    const roster_type expected{{2, {"Aimee"}}};
    REQUIRE(actual == expected);
}

TEST_CASE("Multiple students in the same grade are added to the roster",
          "[233be705-dd58-4968-889d-fb3c7954c9cc]") {
    grade_school::school school{};
    school.add("Blair", 2);
    school.add("James", 2);
    school.add("Paul", 2);
    const auto actual = school.roster();
    const roster_type expected{{2, {"Blair", "James", "Paul"}}};
    REQUIRE(actual == expected);
}

TEST_CASE("Students in multiple grades are added to the roster", "[75a51579-d1d7-407c-a2f8-2166e984e8ab]") {
    grade_school::school school{};
    school.add("Chelsea", 3);
    school.add("Logan", 7);
    const auto actual = school.roster();
    const roster_type expected{{3, {"Chelsea"}}, {7, {"Logan"}}};
    REQUIRE(actual == expected);
}

TEST_CASE("Students are sorted by grades and then by name in the roster",
          "[180a8ff9-5b94-43fc-9db1-d46b4a8c93b6]") {
    grade_school::school school{};
    school.add("Peter", 6);
    school.add("Zoe", 4);
    school.add("Anna", 3);
    school.add("Barb", 6);
    const auto actual = school.roster();
    const roster_type expected{{3, {"Anna"}}, {4, {"Zoe"}}, {6, {"Barb", "Peter"}}};
    REQUIRE(actual == expected);
}

TEST_CASE("Grade is empty if no students in the roster", "[5e67aa3c-a3c6-4407-a183-d8fe59cd1630]") {
    const grade_school::school school{};
    REQUIRE(school.grade(1).empty());
}

TEST_CASE("Students are sorted by name in a grade", "[1bfbcef1-e4a3-49e8-8d22-f6f9f386187e]") {
    grade_school::school school{};
    school.add("Franklin", 5);
    school.add("Bradley", 5);
    school.add("Jeff", 1);
    const std::vector<std::string> expected{"Bradley", "Franklin"};
    REQUIRE(school.grade(5) == expected);
}

TEST_CASE("Looking up an empty grade does not add it to the roster", "[grade-lookup-keeps-roster]") {
    const grade_school::school school{};
    (void)school.grade(1);
    REQUIRE(school.roster().empty());
}

#endif
