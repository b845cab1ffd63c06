#include "knapsack.h"

namespace knapsack {}  // namespace knapsack
