#include "robot_name.h"

namespace robot_name {}  // namespace robot_name
