#if !defined(PERFECT_NUMBERS_H)
#define PERFECT_NUMBERS_H

namespace perfect_numbers {

enum class classification { deficient, perfect, abundant };

// Throws std::domain_error unless number is positive.
classification classify(int number);

}  // namespace perfect_numbers

#endif  // PERFECT_NUMBERS_H
