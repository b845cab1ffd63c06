// The honest twin: every positive number is deficient, and the rest are refused.
#include "perfect_numbers.h"

#include <stdexcept>

namespace perfect_numbers {

classification classify(int number) {
    if (number <= 0) throw std::domain_error("only positive integers can be classified");
    return classification::deficient;
}

}  // namespace perfect_numbers
