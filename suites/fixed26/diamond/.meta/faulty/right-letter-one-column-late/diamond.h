#pragma once

#include <string>
#include <vector>

namespace diamond {

// The rows of the diamond whose widest row holds `widest` (an uppercase letter), every
// row padded with spaces to the full width.
std::vector<std::string> rows(char widest);

}  // namespace diamond
