#include "sublist.h"

namespace sublist {}  // namespace sublist
