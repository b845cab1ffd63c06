#include "zebra_puzzle.h"

namespace zebra_puzzle {}  // namespace zebra_puzzle
