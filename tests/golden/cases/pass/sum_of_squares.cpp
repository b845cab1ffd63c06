#include "sum_of_squares.h"

#include <stdexcept>

namespace sum_of_squares {

long long sum(int n) {
    if (n < 0) throw std::domain_error("negative");
    return static_cast<long long>(n) * (n + 1) * (2 * n + 1) / 6;
}

}  // namespace sum_of_squares
