#include "knapsack.h"

#include <algorithm>

namespace knapsack {

int maximum_value(int maximum_weight, const std::vector<Item>& items) {
    // best[w] is the most value that fits in weight w using the items seen so far.
    std::vector<int> best(static_cast<std::size_t>(maximum_weight) + 1, 0);
    for (const Item& item : items) {
        for (int w = item.weight; w <= maximum_weight; ++w) {
            best[w] = std::max(best[w], best[w - item.weight] + item.value);
        }
    }
    return best[maximum_weight];
}

}  // namespace knapsack
