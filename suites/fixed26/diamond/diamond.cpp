#include "diamond.h"

namespace diamond {

}  // namespace diamond
