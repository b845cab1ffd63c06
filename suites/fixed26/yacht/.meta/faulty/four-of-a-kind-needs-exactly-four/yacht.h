#pragma once

#include <array>
#include <string>

namespace yacht {

// Category names are lowercase ("ones", "full house", "little straight", ...).
// Throws std::invalid_argument for a name that is not a category.
int score(std::array<int, 5> dice, const std::string& category);

}  // namespace yacht
