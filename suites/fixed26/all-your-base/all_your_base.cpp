#include "all_your_base.h"

namespace all_your_base {

}  // namespace all_your_base
