#include "queen_attack.h"

namespace queen_attack {}  // namespace queen_attack
