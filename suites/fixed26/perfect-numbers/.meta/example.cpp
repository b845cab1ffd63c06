#include "perfect_numbers.h"

#include <stdexcept>

namespace perfect_numbers {

namespace {

// Divisors come in pairs (d, number / d) with d <= sqrt(number), so the walk stops there.
long long aliquot_sum(int number) {
    long long sum = 0;
    for (long long d = 1; d * d <= number; ++d) {
        if (number % d != 0) continue;
        sum += d + number / d;
        if (d * d == number) sum -= d;  // a square root pairs with itself
    }
    return sum - number;  // the number itself is not one of its aliquot parts
}

}  // namespace

classification classify(int number) {
    if (number <= 0) throw std::domain_error("only positive integers can be classified");
    const long long sum = aliquot_sum(number);
    if (sum == number) return classification::perfect;
    return sum > number ? classification::abundant : classification::deficient;
}

}  // namespace perfect_numbers
