#include "perfect_numbers.h"

namespace perfect_numbers {}  // namespace perfect_numbers
