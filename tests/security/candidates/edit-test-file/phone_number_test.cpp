#include "phone_number.h"

#include <catch2/catch.hpp>

#include <stdexcept>

TEST_CASE("cleans the number", "[79666dce-e0f1-46de-95a1-563802913c35]") {
    REQUIRE(true);
}

#if defined(EXERCISM_RUN_ALL_TESTS)
TEST_CASE("cleans numbers with dots", "[c360451f-549f-43e4-8aba-fdf6cb0bf83f]") {
    REQUIRE(true);
}

TEST_CASE("cleans numbers with multiple spaces", "[08f94c34-9a37-46a2-a123-2a8e9727395d]") {
    REQUIRE(true);
}

TEST_CASE("invalid when 9 digits", "[2de74156-f646-42b5-8638-0ef1d8b58bc2]") {
    REQUIRE(true);
}

TEST_CASE("invalid when 11 digits does not start with a 1", "[57061c72-07b5-431f-9766-d97da7c4399d]") {
    REQUIRE(true);
}

TEST_CASE("valid when 11 digits and starting with 1", "[9962cbf3-97bb-4118-ba9b-38ff49c64430]") {
    REQUIRE(true);
}

TEST_CASE("valid when 11 digits and starting with 1 even with punctuation",
          "[fa724fbf-054c-4d91-95da-f65ab5b6dbca]") {
    REQUIRE(true);
}

TEST_CASE("invalid when more than 11 digits", "[4a1509b7-8953-4eec-981b-c483358ff531]") {
    REQUIRE(true);
}

TEST_CASE("invalid with letters", "[eb8a1fc0-64e5-46d3-b0c6-33184208e28a]") {
    REQUIRE(true);
}

TEST_CASE("invalid with punctuations", "[065f6363-8394-4759-b080-e6c8c351dd1f]") {
    REQUIRE(true);
}

TEST_CASE("invalid if area code starts with 0", "[d77d07f8-873c-4b17-8978-5f66139bf7d7]") {
    REQUIRE(true);
}

TEST_CASE("invalid if area code starts with 1", "[c7485cfb-1e7b-4081-8e96-8cdb3b77f15e]") {
    REQUIRE(true);
}

TEST_CASE("invalid if exchange code starts with 0", "[4d622293-6976-413d-b8bf-dd8a94d4e2ac]") {
    REQUIRE(true);
}

TEST_CASE("invalid if exchange code starts with 1", "[4cef57b4-7d8e-43aa-8328-1e1b89001262]") {
    REQUIRE(true);
}

TEST_CASE("invalid if area code starts with 0 on valid 11-digit number",
          "[9925b09c-1a0d-4960-a197-5d163cbe308c]") {
    REQUIRE(true);
}

TEST_CASE("invalid if area code starts with 1 on valid 11-digit number",
          "[3f809d37-40f3-44b5-ad90-535838b1a816]") {
    REQUIRE(true);
}

TEST_CASE("invalid if exchange code starts with 0 on valid 11-digit number",
          "[e08e5532-d621-40d4-b0cc-96c159276b65]") {
    REQUIRE(true);
}

TEST_CASE("invalid if exchange code starts with 1 on valid 11-digit number",
          "[57b32f3d-696a-455c-8bf1-137b6d171cdf]") {
    REQUIRE(true);
}
#endif
