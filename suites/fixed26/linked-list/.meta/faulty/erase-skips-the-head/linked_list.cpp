#include "linked_list.h"

namespace linked_list {}  // namespace linked_list
