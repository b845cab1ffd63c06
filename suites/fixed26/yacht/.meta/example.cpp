#include "yacht.h"

#include <algorithm>
#include <numeric>
#include <stdexcept>

namespace yacht {

int score(std::array<int, 5> dice, const std::string& category) {
    std::array<int, 7> count{};  // count[face] for faces 1..6
    for (const int face : dice) ++count[face];
    std::sort(dice.begin(), dice.end());
    const int total = std::accumulate(dice.begin(), dice.end(), 0);

    static const std::array<std::string, 6> single_faces{"ones", "twos", "threes", "fours", "fives", "sixes"};
    const auto single = std::find(single_faces.begin(), single_faces.end(), category);
    if (single != single_faces.end()) {
        const int face = static_cast<int>(single - single_faces.begin()) + 1;
        return face * count[face];
    }
    if (category == "full house") {
        const bool has_triple = std::find(count.begin(), count.end(), 3) != count.end();
        const bool has_pair = std::find(count.begin(), count.end(), 2) != count.end();
        return has_triple && has_pair ? total : 0;
    }
    if (category == "four of a kind") {
        // Sorted, the middle die always shows the face that four or five dice share.
        return count[dice[2]] >= 4 ? 4 * dice[2] : 0;
    }
    if (category == "little straight") return dice == std::array<int, 5>{1, 2, 3, 4, 5} ? 30 : 0;
    if (category == "big straight") return dice == std::array<int, 5>{2, 3, 4, 5, 6} ? 30 : 0;
    if (category == "choice") return total;
    if (category == "yacht") return count[dice[0]] == 5 ? 50 : 0;
    throw std::invalid_argument("unknown category: " + category);
}

}  // namespace yacht
