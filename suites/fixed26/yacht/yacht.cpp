#include "yacht.h"

namespace yacht {}  // namespace yacht
