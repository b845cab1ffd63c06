#include "queen_attack.h"

#include <catch2/catch.hpp>

#include <stdexcept>
#include <utility>

// The canonical creation cases place a single queen; here it is the white one, with the
// black queen parked at (0, 3), out of the way.

TEST_CASE("queen with a valid position", "[3ac4f735-d36c-44c4-a3e2-316f79704203]") {
    const auto white = std::make_pair(2, 2);
    const auto black = std::make_pair(0, 3);

    const queen_attack::chess_board board{white, black};

    REQUIRE(board.white() == white);
    REQUIRE(board.black() == black);
}

#if defined(EXERCISM_RUN_ALL_TESTS)
TEST_CASE("queen must have positive row", "[4e812d5d-b974-4e38-9a6b-8e0492bfa7be]") {
    REQUIRE_THROWS_AS((queen_attack::chess_board{std::make_pair(-2, 2), std::make_pair(0, 3)}),
                      std::domain_error);
}

TEST_CASE("queen must have row on board", "[f07b7536-b66b-4f08-beb9-4d70d891d5c8]") {
    REQUIRE_THROWS_AS((queen_attack::chess_board{std::make_pair(8, 4), std::make_pair(0, 3)}),
                      std::domain_error);
}

TEST_CASE("queen must have positive column", "[15a10794-36d9-4907-ae6b-e5a0d4c54ebe]") {
    REQUIRE_THROWS_AS((queen_attack::chess_board{std::make_pair(2, -2), std::make_pair(0, 3)}),
                      std::domain_error);
}

TEST_CASE("queen must have column on board", "[6907762d-0e8a-4c38-87fb-12f2f65f0ce4]") {
    REQUIRE_THROWS_AS((queen_attack::chess_board{std::make_pair(4, 8), std::make_pair(0, 3)}),
                      std::domain_error);
}

TEST_CASE("queens must stand on different squares", "[same-square]") {
    const auto square = std::make_pair(3, 7);

    REQUIRE_THROWS_AS((queen_attack::chess_board{square, square}), std::domain_error);
}

TEST_CASE("cannot attack", "[33ae4113-d237-42ee-bac1-e1e699c0c007]") {
    const queen_attack::chess_board board{std::make_pair(2, 4), std::make_pair(6, 6)};

    REQUIRE_FALSE(board.can_attack());
}

TEST_CASE("can attack on same row", "[eaa65540-ea7c-4152-8c21-003c7a68c914]") {
    const queen_attack::chess_board board{std::make_pair(2, 4), std::make_pair(2, 6)};

    REQUIRE(board.can_attack());
}

TEST_CASE("can attack on same column", "[bae6f609-2c0e-4154-af71-af82b7c31cea]") {
    const queen_attack::chess_board board{std::make_pair(4, 5), std::make_pair(2, 5)};

    REQUIRE(board.can_attack());
}

TEST_CASE("can attack on first diagonal", "[0e1b4139-b90d-4562-bd58-dfa04f1746c7]") {
    const queen_attack::chess_board board{std::make_pair(2, 2), std::make_pair(0, 4)};

    REQUIRE(board.can_attack());
}

TEST_CASE("can attack on second diagonal", "[ff9b7ed4-e4b6-401b-8d16-bc894d6d3dcd]") {
    const queen_attack::chess_board board{std::make_pair(2, 2), std::make_pair(3, 1)};

    REQUIRE(board.can_attack());
}

TEST_CASE("can attack on third diagonal", "[0a71e605-6e28-4cc2-aa47-d20a2e71037a]") {
    const queen_attack::chess_board board{std::make_pair(2, 2), std::make_pair(1, 1)};

    REQUIRE(board.can_attack());
}

TEST_CASE("can attack on fourth diagonal", "[0790b588-ae73-4f1f-a968-dd0b34f45f86]") {
    const queen_attack::chess_board board{std::make_pair(1, 7), std::make_pair(0, 6)};

    REQUIRE(board.can_attack());
}

TEST_CASE(
    "cannot attack if falling diagonals are only the same when reflected across the longest "
    "falling diagonal",
    "[543f8fd4-2597-4aad-8d77-cbdab63619f8]") {
    const queen_attack::chess_board board{std::make_pair(4, 1), std::make_pair(2, 5)};

    REQUIRE_FALSE(board.can_attack());
}
#endif
