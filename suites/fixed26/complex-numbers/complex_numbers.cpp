#include "complex_numbers.h"

namespace complex_numbers {

}  // namespace complex_numbers
