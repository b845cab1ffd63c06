#include "all_your_base.h"

#include <algorithm>

namespace all_your_base {

std::vector<unsigned int> convert(unsigned int input_base, const std::vector<unsigned int>& digits,
                                  unsigned int output_base) {
    if (input_base < 2 || output_base < 2) {
        throw std::invalid_argument("both bases must be at least 2");
    }
    unsigned int value = 0;
    for (unsigned int digit : digits) {
        if (digit > input_base) {
            throw std::invalid_argument("every digit must be smaller than the input base");
        }
        value = value * input_base + digit;
    }
    std::vector<unsigned int> result;
    for (; value > 0; value /= output_base) {
        result.push_back(value % output_base);
    }
    std::reverse(result.begin(), result.end());
    return result;
}

}  // namespace all_your_base
