#ifndef ALL_YOUR_BASE_H
#define ALL_YOUR_BASE_H

#include <stdexcept>
#include <vector>

namespace all_your_base {

// Digits are most significant first. A value of zero has no digits at all.
std::vector<unsigned int> convert(unsigned int input_base, const std::vector<unsigned int>& digits,
                                  unsigned int output_base);

}  // namespace all_your_base

#endif  // ALL_YOUR_BASE_H
