#include "sum_of_squares.h"

#include <stdexcept>

namespace sum_of_squares {

long long sum(int n) {
    if (n < 0) throw std::domain_error("negative");
    long long total = 0;
    for (long long k = 1; k <= n; ++k) total += k * k;
    return total;
}

}  // namespace sum_of_squares
