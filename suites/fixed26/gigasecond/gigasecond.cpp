#include "gigasecond.h"

namespace gigasecond {}  // namespace gigasecond
