#include "sum_of_squares.h"

namespace sum_of_squares {

long long sum(int n) {
    volatile long long total = 0;
    for (;;) total = total + n;
}

}  // namespace sum_of_squares
