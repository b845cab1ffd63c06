#include "sum_of_squares.h"

namespace sum_of_squares {

long long sum(int n) {
    long long total = 0
    for (int k = 1; k <= n; ++k) total += k * k;
    return total;
}

}  // namespace sum_of_squares
