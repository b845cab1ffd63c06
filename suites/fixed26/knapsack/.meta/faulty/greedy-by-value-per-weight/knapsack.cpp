#include "knapsack.h"

#include <algorithm>

namespace knapsack {

int maximum_value(int maximum_weight, const std::vector<Item>& items) {
    // Most valuable per unit of weight first; take every item that still fits.
    std::vector<Item> by_density = items;
    std::sort(by_density.begin(), by_density.end(), [](const Item& a, const Item& b) {
        return a.value * b.weight > b.value * a.weight;
    });
    int room = maximum_weight;
    int total = 0;
    for (const Item& item : by_density) {
        if (item.weight <= room) {
            room -= item.weight;
            total += item.value;
        }
    }
    return total;
}

}  // namespace knapsack
