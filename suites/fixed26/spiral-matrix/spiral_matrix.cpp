#include "spiral_matrix.h"

namespace spiral_matrix {}  // namespace spiral_matrix
