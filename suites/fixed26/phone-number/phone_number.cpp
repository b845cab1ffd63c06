#include "phone_number.h"

namespace phone_number {}  // namespace phone_number
