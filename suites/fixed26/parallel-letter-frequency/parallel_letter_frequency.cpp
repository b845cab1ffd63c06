#include "parallel_letter_frequency.h"

namespace parallel_letter_frequency {}  // namespace parallel_letter_frequency
