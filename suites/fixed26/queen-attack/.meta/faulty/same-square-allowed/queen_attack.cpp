#include "queen_attack.h"

#include <cstdlib>
#include <stdexcept>

namespace queen_attack {

namespace {

constexpr int board_size = 8;

bool on_board(int coordinate) { return coordinate >= 0 && coordinate < board_size; }

}  // namespace

chess_board::chess_board(position white, position black) : white_(white), black_(black) {
    for (const position& queen : {white, black}) {
        if (!on_board(queen.first) || !on_board(queen.second)) {
            throw std::domain_error("queen placed off the board");
        }
    }
}

position chess_board::white() const { return white_; }

position chess_board::black() const { return black_; }

bool chess_board::can_attack() const {
    const int rows_apart = std::abs(white_.first - black_.first);
    const int columns_apart = std::abs(white_.second - black_.second);
    return rows_apart == 0 || columns_apart == 0 || rows_apart == columns_apart;
}

}  // namespace queen_attack
