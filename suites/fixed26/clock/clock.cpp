#include "clock.h"

namespace date_independent {

}  // namespace date_independent
