#include "all_your_base.h"

#include <catch2/catch.hpp>

#include <stdexcept>

using digits = std::vector<unsigned int>;

TEST_CASE("single bit one to decimal", "[5ce422f9-7a4b-4f44-ad29-49c67cb32d2c]") {
    REQUIRE(all_your_base::convert(2, digits{1}, 10) == digits{1});
}

#if defined(EXERCISM_RUN_ALL_TESTS)

TEST_CASE("binary to single decimal", "[0cc3fea8-bb79-46ac-a2ab-5a2c93051033]") {
    REQUIRE(all_your_base::convert(2, digits{1, 0, 1}, 10) == digits{5});
}

TEST_CASE("single decimal to binary", "[f12db0f9-0d3d-42c2-b3ba-e38cb375a2b8]") {
    REQUIRE(all_your_base::convert(10, digits{5}, 2) == digits{1, 0, 1});
}

TEST_CASE("binary to multiple decimal", "[2c45cf54-6da3-4748-9733-5a3c765d925b]") {
    REQUIRE(all_your_base::convert(2, digits{1, 0, 1, 0, 1, 0}, 10) == digits{4, 2});
}

TEST_CASE("decimal to binary", "[65ddb8b4-8899-4fcc-8618-181b2cf0002d]") {
    REQUIRE(all_your_base::convert(10, digits{4, 2}, 2) == digits{1, 0, 1, 0, 1, 0});
}

TEST_CASE("trinary to hexadecimal", "[8d418419-02a7-4824-8b7a-352d33c6987e]") {
    REQUIRE(all_your_base::convert(3, digits{1, 1, 2, 0}, 16) == digits{2, 10});
}

TEST_CASE("hexadecimal to trinary", "[d3901c80-8190-41b9-bd86-38d988efa956]") {
    REQUIRE(all_your_base::convert(16, digits{2, 10}, 3) == digits{1, 1, 2, 0});
}

TEST_CASE("15-bit integer", "[5d42f85e-21ad-41bd-b9be-a3e8e4258bbf]") {
    REQUIRE(all_your_base::convert(97, digits{3, 46, 60}, 73) == digits{6, 10, 45});
}

// On this track a value of zero converts to no digits at all (the canonical data says [0]).
TEST_CASE("empty list", "[d68788f7-66dd-43f8-a543-f15b6d233f83]") {
    REQUIRE(all_your_base::convert(2, digits{}, 10) == digits{});
}

TEST_CASE("single zero", "[5e27e8da-5862-4c5f-b2a9-26c0382b6be7]") {
    REQUIRE(all_your_base::convert(10, digits{0}, 2) == digits{});
}

TEST_CASE("multiple zeros", "[2e1c2573-77e4-4b9c-8517-6c56c5bcfdf2]") {
    REQUIRE(all_your_base::convert(10, digits{0, 0, 0}, 2) == digits{});
}

TEST_CASE("leading zeros", "[3530cd9f-8d6d-43f5-bc6e-b30b1db9629b]") {
    REQUIRE(all_your_base::convert(7, digits{0, 6, 0}, 10) == digits{4, 2});
}

TEST_CASE("input base is one", "[a6b476a1-1901-4f2a-92c4-4d91917ae023]") {
    REQUIRE_THROWS_AS(all_your_base::convert(1, digits{}, 10), std::invalid_argument);
}

TEST_CASE("input base is zero", "[e21a693a-7a69-450b-b393-27415c26a016]") {
    REQUIRE_THROWS_AS(all_your_base::convert(0, digits{}, 10), std::invalid_argument);
}

TEST_CASE("invalid positive digit", "[232fa4a5-e761-4939-ba0c-ed046cd0676a]") {
    REQUIRE_THROWS_AS(all_your_base::convert(2, digits{1, 2, 1, 0, 1, 0}, 10), std::invalid_argument);
}

TEST_CASE("output base is one", "[14238f95-45da-41dc-95ce-18f860b30ad3]") {
    REQUIRE_THROWS_AS(all_your_base::convert(2, digits{1, 0, 1, 0, 1, 0}, 1), std::invalid_argument);
}

TEST_CASE("output base is zero", "[73dac367-da5c-4a37-95fe-c87fad0a4047]") {
    REQUIRE_THROWS_AS(all_your_base::convert(10, digits{7}, 0), std::invalid_argument);
}

#endif
