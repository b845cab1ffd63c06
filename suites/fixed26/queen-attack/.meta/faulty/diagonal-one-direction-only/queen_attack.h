#if !defined(QUEEN_ATTACK_H)
#define QUEEN_ATTACK_H

#include <utility>

namespace queen_attack {

// A position is a (row, column) pair, both counted from 0.
using position = std::pair<int, int>;

class chess_board {
   public:
    // Throws std::domain_error when a queen is off the board or both share a square.
    chess_board(position white, position black);

    position white() const;
    position black() const;
    bool can_attack() const;

   private:
    position white_;
    position black_;
};

}  // namespace queen_attack

#endif  // QUEEN_ATTACK_H
