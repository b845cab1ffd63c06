#include "diamond.h"

#include <cstddef>

namespace diamond {

std::vector<std::string> rows(char widest) {
    const std::size_t middle = static_cast<std::size_t>(widest - 'A');
    const std::size_t size = 2 * middle + 1;
    std::vector<std::string> grid(size, std::string(size, ' '));
    for (std::size_t i = 0; i <= middle; ++i) {
        std::string& row = grid[i];
        row[middle - i] = row[middle + i] = static_cast<char>('A' + i + 1);
        grid[size - 1 - i] = row;
    }
    return grid;
}

}  // namespace diamond
