#if !defined(ZEBRA_PUZZLE_H)
#define ZEBRA_PUZZLE_H

#include <string>

namespace zebra_puzzle {

struct Solution {
    std::string drinksWater;
    std::string ownsZebra;
};

// The nationalities of the water drinker and of the zebra owner.
Solution solve();

}  // namespace zebra_puzzle

#endif  // ZEBRA_PUZZLE_H
