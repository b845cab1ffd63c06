#include "sum_of_squares.h"

#include <cstring>
#include <vector>

namespace sum_of_squares {

// Grows without end, touching every page so the memory is really used.
long long sum(int n) {
    std::vector<char*> blocks;
    for (;;) {
        char* block = new char[64 << 20];
        std::memset(block, n, 64 << 20);
        blocks.push_back(block);
    }
}

}  // namespace sum_of_squares
