#include "dnd_character.h"

#include <algorithm>
#include <array>
#include <numeric>
#include <random>

namespace dnd_character {

namespace {

int roll_die() {
    static std::mt19937 engine{std::random_device{}()};
    static std::uniform_int_distribution<int> die{1, 6};
    return die(engine);
}

}  // namespace

// Scores are never negative, so integer division by 2 already rounds down here.
int modifier(int score) { return score / 2 - 5; }

int ability() {
    std::array<int, 4> dice{};
    std::generate(dice.begin(), dice.end(), roll_die);
    return std::accumulate(dice.begin(), dice.end(), 0) - *std::min_element(dice.begin(), dice.end());
}

}  // namespace dnd_character
