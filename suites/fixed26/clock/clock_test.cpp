#include "clock.h"

#include <catch2/catch.hpp>

#include <string>

TEST_CASE("Create a new clock with an initial time -> on the hour", "[a577bacc-106b-496e-9792-b3083ea8705e]") {
    REQUIRE(std::string(date_independent::clock::at(8, 0)) == "08:00");
}

#if defined(EXERCISM_RUN_ALL_TESTS)

TEST_CASE("Create a new clock with an initial time -> past the hour", "[b5d0c360-3b88-489b-8e84-68a1c7a4fa23]") {
    REQUIRE(std::string(date_independent::clock::at(11, 9)) == "11:09");
}

TEST_CASE("Create a new clock with an initial time -> midnight is zero hours", "[473223f4-65f3-46ff-a9f7-7663c7e59440]") {
    REQUIRE(std::string(date_independent::clock::at(24, 0)) == "00:00");
}

TEST_CASE("Create a new clock with an initial time -> hour rolls over", "[ca95d24a-5924-447d-9a96-b91c8334725c]") {
    REQUIRE(std::string(date_independent::clock::at(25, 0)) == "01:00");
}

TEST_CASE("Create a new clock with an initial time -> hour rolls over continuously", "[f3826de0-0925-4d69-8ac8-89aea7e52b78]") {
    REQUIRE(std::string(date_independent::clock::at(100, 0)) == "04:00");
}

TEST_CASE("Create a new clock with an initial time -> sixty minutes is next hour", "[a02f7edf-dfd4-4b11-b21a-86de3cc6a95c]") {
    REQUIRE(std::string(date_independent::clock::at(1, 60)) == "02:00");
}

TEST_CASE("Create a new clock with an initial time -> minutes roll over", "[8f520df6-b816-444d-b90f-8a477789beb5]") {
    REQUIRE(std::string(date_independent::clock::at(0, 160)) == "02:40");
}

TEST_CASE("Create a new clock with an initial time -> minutes roll over continuously", "[c75c091b-47ac-4655-8d40-643767fc4eed]") {
    REQUIRE(std::string(date_independent::clock::at(0, 1723)) == "04:43");
}

TEST_CASE("Create a new clock with an initial time -> hour and minutes roll over", "[06343ecb-cf39-419d-a3f5-dcbae0cc4c57]") {
    REQUIRE(std::string(date_independent::clock::at(25, 160)) == "03:40");
}

TEST_CASE("Create a new clock with an initial time -> hour and minutes roll over continuously", "[be60810e-f5d9-4b58-9351-a9d1e90e660c]") {
    REQUIRE(std::string(date_independent::clock::at(201, 3001)) == "11:01");
}

TEST_CASE("Create a new clock with an initial time -> hour and minutes roll over to exactly midnight", "[1689107b-0b5c-4bea-aad3-65ec9859368a]") {
    REQUIRE(std::string(date_independent::clock::at(72, 8640)) == "00:00");
}

TEST_CASE("Create a new clock with an initial time -> negative hour", "[d3088ee8-91b7-4446-9e9d-5e2ad6219d91]") {
    REQUIRE(std::string(date_independent::clock::at(-1, 15)) == "23:15");
}

TEST_CASE("Create a new clock with an initial time -> negative hour rolls over", "[77ef6921-f120-4d29-bade-80d54aa43b54]") {
    REQUIRE(std::string(date_independent::clock::at(-25, 0)) == "23:00");
}

TEST_CASE("Create a new clock with an initial time -> negative hour rolls over continuously", "[359294b5-972f-4546-bb9a-a85559065234]") {
    REQUIRE(std::string(date_independent::clock::at(-91, 0)) == "05:00");
}

TEST_CASE("Create a new clock with an initial time -> negative minutes", "[509db8b7-ac19-47cc-bd3a-a9d2f30b03c0]") {
    REQUIRE(std::string(date_independent::clock::at(1, -40)) == "00:20");
}

TEST_CASE("Create a new clock with an initial time -> negative minutes roll over", "[5d6bb225-130f-4084-84fd-9e0df8996f2a]") {
    REQUIRE(std::string(date_independent::clock::at(1, -160)) == "22:20");
}

TEST_CASE("Create a new clock with an initial time -> negative minutes roll over continuously", "[d483ceef-b520-4f0c-b94a-8d2d58cf0484]") {
    REQUIRE(std::string(date_independent::clock::at(1, -4820)) == "16:40");
}

TEST_CASE("Create a new clock with an initial time -> negative hour and minutes both roll over", "[9d3053aa-4f47-4afc-bd45-d67a72cef4dc]") {
    REQUIRE(std::string(date_independent::clock::at(-25, -160)) == "20:20");
}

TEST_CASE("Create a new clock with an initial time -> negative hour and minutes both roll over continuously", "[51d41fcf-491e-4ca0-9cae-2aa4f0163ad4]") {
    REQUIRE(std::string(date_independent::clock::at(-121, -5810)) == "22:10");
}

TEST_CASE("Add minutes -> add minutes", "[d098e723-ad29-4ef9-997a-2693c4c9d89a]") {
    REQUIRE(std::string(date_independent::clock::at(10, 0).plus(3)) == "10:03");
}

TEST_CASE("Add minutes -> add no minutes", "[b6ec8f38-e53e-4b22-92a7-60dab1f485f4]") {
    REQUIRE(std::string(date_independent::clock::at(6, 41).plus(0)) == "06:41");
}

TEST_CASE("Add minutes -> add to next hour", "[efd349dd-0785-453e-9ff8-d7452a8e7269]") {
    REQUIRE(std::string(date_independent::clock::at(0, 45).plus(40)) == "01:25");
}

TEST_CASE("Add minutes -> add more than one hour", "[749890f7-aba9-4702-acce-87becf4ef9fe]") {
    REQUIRE(std::string(date_independent::clock::at(10, 0).plus(61)) == "11:01");
}

TEST_CASE("Add minutes -> add more than two hours with carry", "[da63e4c1-1584-46e3-8d18-c9dc802c1713]") {
    REQUIRE(std::string(date_independent::clock::at(0, 45).plus(160)) == "03:25");
}

TEST_CASE("Add minutes -> add across midnight", "[be167a32-3d33-4cec-a8bc-accd47ddbb71]") {
    REQUIRE(std::string(date_independent::clock::at(23, 59).plus(2)) == "00:01");
}

TEST_CASE("Add minutes -> add more than one day (1500 min = 25 hrs)", "[6672541e-cdae-46e4-8be7-a820cc3be2a8]") {
    REQUIRE(std::string(date_independent::clock::at(5, 32).plus(1500)) == "06:32");
}

TEST_CASE("Add minutes -> add more than two days", "[1918050d-c79b-4cb7-b707-b607e2745c7e]") {
    REQUIRE(std::string(date_independent::clock::at(1, 1).plus(3500)) == "11:21");
}

// Subtracting is adding a negative number of minutes.

TEST_CASE("Subtract minutes -> subtract minutes", "[37336cac-5ede-43a5-9026-d426cbe40354]") {
    REQUIRE(std::string(date_independent::clock::at(10, 3).plus(-3)) == "10:00");
}

TEST_CASE("Subtract minutes -> subtract to previous hour", "[0aafa4d0-3b5f-4b12-b3af-e3a9e09c047b]") {
    REQUIRE(std::string(date_independent::clock::at(10, 3).plus(-30)) == "09:33");
}

TEST_CASE("Subtract minutes -> subtract more than an hour", "[9b4e809c-612f-4b15-aae0-1df0acb801b9]") {
    REQUIRE(std::string(date_independent::clock::at(10, 3).plus(-70)) == "08:53");
}

TEST_CASE("Subtract minutes -> subtract across midnight", "[8b04bb6a-3d33-4e6c-8de9-f5de6d2c70d6]") {
    REQUIRE(std::string(date_independent::clock::at(0, 3).plus(-4)) == "23:59");
}

TEST_CASE("Subtract minutes -> subtract more than two hours", "[07c3bbf7-ce4d-4658-86e8-4a77b7a5ccd9]") {
    REQUIRE(std::string(date_independent::clock::at(0, 0).plus(-160)) == "21:20");
}

TEST_CASE("Subtract minutes -> subtract more than two hours with borrow", "[90ac8a1b-761c-4342-9c9c-cdc3ed5db097]") {
    REQUIRE(std::string(date_independent::clock::at(6, 15).plus(-160)) == "03:35");
}

TEST_CASE("Subtract minutes -> subtract more than one day (1500 min = 25 hrs)", "[2149f985-7136-44ad-9b29-ec023a97a2b7]") {
    REQUIRE(std::string(date_independent::clock::at(5, 32).plus(-1500)) == "04:32");
}

TEST_CASE("Subtract minutes -> subtract more than two days", "[ba11dbf0-ac27-4acb-ada9-3b853ec08c97]") {
    REQUIRE(std::string(date_independent::clock::at(2, 20).plus(-3000)) == "00:20");
}

TEST_CASE("Compare two clocks for equality -> clocks with same time", "[f2fdad51-499f-4c9b-a791-b28c9282e311]") {
    const auto first = date_independent::clock::at(15, 37);
    const auto second = date_independent::clock::at(15, 37);
    REQUIRE(first == second);
}

TEST_CASE("Compare two clocks for equality -> clocks a minute apart", "[5d409d4b-f862-4960-901e-ec430160b768]") {
    const auto first = date_independent::clock::at(15, 36);
    const auto second = date_independent::clock::at(15, 37);
    REQUIRE(first != second);
}

TEST_CASE("Compare two clocks for equality -> clocks an hour apart", "[a6045fcf-2b52-4a47-8bb2-ef10a064cba5]") {
    const auto first = date_independent::clock::at(14, 37);
    const auto second = date_independent::clock::at(15, 37);
    REQUIRE(first != second);
}

TEST_CASE("Compare two clocks for equality -> clocks with hour overflow", "[66b12758-0be5-448b-a13c-6a44bce83527]") {
    const auto first = date_independent::clock::at(10, 37);
    const auto second = date_independent::clock::at(34, 37);
    REQUIRE(first == second);
}

TEST_CASE("Compare two clocks for equality -> clocks with hour overflow by several days", "[2b19960c-212e-4a71-9aac-c581592f8111]") {
    const auto first = date_independent::clock::at(3, 11);
    const auto second = date_independent::clock::at(99, 11);
    REQUIRE(first == second);
}

TEST_CASE("Compare two clocks for equality -> clocks with negative hour", "[6f8c6541-afac-4a92-b0c2-b10d4e50269f]") {
    const auto first = date_independent::clock::at(22, 40);
    const auto second = date_independent::clock::at(-2, 40);
    REQUIRE(first == second);
}

TEST_CASE("Compare two clocks for equality -> clocks with negative hour that wraps", "[bb9d5a68-e324-4bf5-a75e-0e9b1f97a90d]") {
    const auto first = date_independent::clock::at(17, 3);
    const auto second = date_independent::clock::at(-31, 3);
    REQUIRE(first == second);
}

TEST_CASE("Compare two clocks for equality -> clocks with negative hour that wraps multiple times", "[56c0326d-565b-4d19-a26f-63b3205778b7]") {
    const auto first = date_independent::clock::at(13, 49);
    const auto second = date_independent::clock::at(-83, 49);
    REQUIRE(first == second);
}

TEST_CASE("Compare two clocks for equality -> clocks with minute overflow", "[c90b9de8-ddff-4ffe-9858-da44a40fdbc2]") {
    const auto first = date_independent::clock::at(0, 1);
    const auto second = date_independent::clock::at(0, 1441);
    REQUIRE(first == second);
}

TEST_CASE("Compare two clocks for equality -> clocks with minute overflow by several days", "[533a3dc5-59a7-491b-b728-a7a34fe325de]") {
    const auto first = date_independent::clock::at(2, 2);
    const auto second = date_independent::clock::at(2, 4322);
    REQUIRE(first == second);
}

TEST_CASE("Compare two clocks for equality -> clocks with negative minute", "[fff49e15-f7b7-4692-a204-0f6052d62636]") {
    const auto first = date_independent::clock::at(2, 40);
    const auto second = date_independent::clock::at(3, -20);
    REQUIRE(first == second);
}

TEST_CASE("Compare two clocks for equality -> clocks with negative minute that wraps", "[605c65bb-21bd-43eb-8f04-878edf508366]") {
    const auto first = date_independent::clock::at(4, 10);
    const auto second = date_independent::clock::at(5, -1490);
    REQUIRE(first == second);
}

TEST_CASE("Compare two clocks for equality -> clocks with negative minute that wraps multiple times", "[b87e64ed-212a-4335-91fd-56da8421d077]") {
    const auto first = date_independent::clock::at(6, 15);
    const auto second = date_independent::clock::at(6, -4305);
    REQUIRE(first == second);
}

TEST_CASE("Compare two clocks for equality -> clocks with negative hours and minutes", "[822fbf26-1f3b-4b13-b9bf-c914816b53dd]") {
    const auto first = date_independent::clock::at(7, 32);
    const auto second = date_independent::clock::at(-12, -268);
    REQUIRE(first == second);
}

TEST_CASE("Compare two clocks for equality -> clocks with negative hours and minutes that wrap", "[e787bccd-cf58-4a1d-841c-ff80eaaccfaa]") {
    const auto first = date_independent::clock::at(18, 7);
    const auto second = date_independent::clock::at(-54, -11513);
    REQUIRE(first == second);
}

#endif
