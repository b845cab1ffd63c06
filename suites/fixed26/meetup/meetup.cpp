#include "meetup.h"

namespace meetup {}  // namespace meetup
