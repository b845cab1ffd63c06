#pragma once

namespace sum_of_squares {

long long sum(int n);

}  // namespace sum_of_squares
