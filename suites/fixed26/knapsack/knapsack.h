#ifndef KNAPSACK_H
#define KNAPSACK_H

namespace knapsack {

struct Item {
    int weight;
    int value;
};

}  // namespace knapsack

#endif  // KNAPSACK_H
