#include "sum_of_squares.h"

namespace sum_of_squares {

long long sum(int) { return 0; }

}  // namespace sum_of_squares
