#include "kindergarten_garden.h"

#include <catch2/catch.hpp>

#include <array>

CATCH_REGISTER_ENUM(kindergarten_garden::Plants, kindergarten_garden::Plants::grass,
                    kindergarten_garden::Plants::clover, kindergarten_garden::Plants::radishes,
                    kindergarten_garden::Plants::violets)

using kindergarten_garden::Plants;

TEST_CASE("garden with single student", "[1fc316ed-17ab-4fba-88ef-3ae78296b692]") {
    const std::array<Plants, 4> expected{Plants::radishes, Plants::clover, Plants::grass, Plants::grass};
    REQUIRE(kindergarten_garden::plants("RC\nGG", "Alice") == expected);
}

#if defined(EXERCISM_RUN_ALL_TESTS)

TEST_CASE("different garden with single student", "[acd19dc1-2200-4317-bc2a-08f021276b40]") {
    const std::array<Plants, 4> expected{Plants::violets, Plants::clover, Plants::radishes, Plants::clover};
    REQUIRE(kindergarten_garden::plants("VC\nRC", "Alice") == expected);
}

TEST_CASE("garden with two students", "[c376fcc8-349c-446c-94b0-903947315757]") {
    const std::array<Plants, 4> expected{Plants::clover, Plants::grass, Plants::radishes, Plants::clover};
    REQUIRE(kindergarten_garden::plants("VVCG\nVVRC", "Bob") == expected);
}

TEST_CASE("second student's garden", "[2d620f45-9617-4924-9d27-751c80d17db9]") {
    const std::array<Plants, 4> expected{Plants::clover, Plants::clover, Plants::clover, Plants::clover};
    REQUIRE(kindergarten_garden::plants("VVCCGG\nVVCCGG", "Bob") == expected);
}

TEST_CASE("third student's garden", "[57712331-4896-4364-89f8-576421d69c44]") {
    const std::array<Plants, 4> expected{Plants::grass, Plants::grass, Plants::grass, Plants::grass};
    REQUIRE(kindergarten_garden::plants("VVCCGG\nVVCCGG", "Charlie") == expected);
}

TEST_CASE("for Alice, first student's garden", "[149b4290-58e1-40f2-8ae4-8b87c46e765b]") {
    const std::array<Plants, 4> expected{Plants::violets, Plants::radishes, Plants::violets, Plants::radishes};
    REQUIRE(kindergarten_garden::plants("VRCGVVRVCGGCCGVRGCVCGCGV\nVRCCCGCRRGVCGCRVVCVGCGCV", "Alice") == expected);
}

TEST_CASE("for Bob, second student's garden", "[ba25dbbc-10bd-4a37-b18e-f89ecd098a5e]") {
    const std::array<Plants, 4> expected{Plants::clover, Plants::grass, Plants::clover, Plants::clover};
    REQUIRE(kindergarten_garden::plants("VRCGVVRVCGGCCGVRGCVCGCGV\nVRCCCGCRRGVCGCRVVCVGCGCV", "Bob") == expected);
}

TEST_CASE("for Charlie", "[566b621b-f18e-4c5f-873e-be30544b838c]") {
    const std::array<Plants, 4> expected{Plants::violets, Plants::violets, Plants::clover, Plants::grass};
    REQUIRE(kindergarten_garden::plants("VRCGVVRVCGGCCGVRGCVCGCGV\nVRCCCGCRRGVCGCRVVCVGCGCV", "Charlie") == expected);
}

TEST_CASE("for David", "[3ad3df57-dd98-46fc-9269-1877abf612aa]") {
    const std::array<Plants, 4> expected{Plants::radishes, Plants::violets, Plants::clover, Plants::radishes};
    REQUIRE(kindergarten_garden::plants("VRCGVVRVCGGCCGVRGCVCGCGV\nVRCCCGCRRGVCGCRVVCVGCGCV", "David") == expected);
}

TEST_CASE("for Eve", "[0f0a55d1-9710-46ed-a0eb-399ba8c72db2]") {
    const std::array<Plants, 4> expected{Plants::clover, Plants::grass, Plants::radishes, Plants::grass};
    REQUIRE(kindergarten_garden::plants("VRCGVVRVCGGCCGVRGCVCGCGV\nVRCCCGCRRGVCGCRVVCVGCGCV", "Eve") == expected);
}

TEST_CASE("for Fred", "[a7e80c90-b140-4ea1-aee3-f4625365c9a4]") {
    const std::array<Plants, 4> expected{Plants::grass, Plants::clover, Plants::violets, Plants::clover};
    REQUIRE(kindergarten_garden::plants("VRCGVVRVCGGCCGVRGCVCGCGV\nVRCCCGCRRGVCGCRVVCVGCGCV", "Fred") == expected);
}

TEST_CASE("for Ginny", "[9d94b273-2933-471b-86e8-dba68694c615]") {
    const std::array<Plants, 4> expected{Plants::clover, Plants::grass, Plants::grass, Plants::clover};
    REQUIRE(kindergarten_garden::plants("VRCGVVRVCGGCCGVRGCVCGCGV\nVRCCCGCRRGVCGCRVVCVGCGCV", "Ginny") == expected);
}

TEST_CASE("for Harriet", "[f55bc6c2-ade8-4844-87c4-87196f1b7258]") {
    const std::array<Plants, 4> expected{Plants::violets, Plants::radishes, Plants::radishes, Plants::violets};
    REQUIRE(kindergarten_garden::plants("VRCGVVRVCGGCCGVRGCVCGCGV\nVRCCCGCRRGVCGCRVVCVGCGCV", "Harriet") == expected);
}

TEST_CASE("for Ileana", "[759070a3-1bb1-4dd4-be2c-7cce1d7679ae]") {
    const std::array<Plants, 4> expected{Plants::grass, Plants::clover, Plants::violets, Plants::clover};
    REQUIRE(kindergarten_garden::plants("VRCGVVRVCGGCCGVRGCVCGCGV\nVRCCCGCRRGVCGCRVVCVGCGCV", "Ileana") == expected);
}

TEST_CASE("for Joseph", "[78578123-2755-4d4a-9c7d-e985b8dda1c6]") {
    const std::array<Plants, 4> expected{Plants::violets, Plants::clover, Plants::violets, Plants::grass};
    REQUIRE(kindergarten_garden::plants("VRCGVVRVCGGCCGVRGCVCGCGV\nVRCCCGCRRGVCGCRVVCVGCGCV", "Joseph") == expected);
}

TEST_CASE("for Kincaid, second to last student's garden", "[6bb66df7-f433-41ab-aec2-3ead6e99f65b]") {
    const std::array<Plants, 4> expected{Plants::grass, Plants::clover, Plants::clover, Plants::grass};
    REQUIRE(kindergarten_garden::plants("VRCGVVRVCGGCCGVRGCVCGCGV\nVRCCCGCRRGVCGCRVVCVGCGCV", "Kincaid") == expected);
}

TEST_CASE("for Larry, last student's garden", "[d7edec11-6488-418a-94e6-ed509e0fa7eb]") {
    const std::array<Plants, 4> expected{Plants::grass, Plants::violets, Plants::clover, Plants::violets};
    REQUIRE(kindergarten_garden::plants("VRCGVVRVCGGCCGVRGCVCGCGV\nVRCCCGCRRGVCGCRVVCVGCGCV", "Larry") == expected);
}

#endif
