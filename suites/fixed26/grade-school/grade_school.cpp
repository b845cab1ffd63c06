#include "grade_school.h"

namespace grade_school {}  // namespace grade_school
