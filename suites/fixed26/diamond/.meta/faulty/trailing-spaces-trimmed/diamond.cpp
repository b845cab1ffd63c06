#include "diamond.h"

#include <cstddef>

namespace diamond {

std::vector<std::string> rows(char widest) {
    const std::size_t middle = static_cast<std::size_t>(widest - 'A');
    std::vector<std::string> top;
    for (std::size_t i = 0; i <= middle; ++i) {
        const char letter = static_cast<char>('A' + i);
        std::string row(middle - i, ' ');
        row += letter;
        if (i > 0) {
            row += std::string(2 * i - 1, ' ');
            row += letter;
        }
        top.push_back(row);
    }
    std::vector<std::string> grid = top;
    grid.insert(grid.end(), top.rbegin() + 1, top.rend());
    return grid;
}

}  // namespace diamond
