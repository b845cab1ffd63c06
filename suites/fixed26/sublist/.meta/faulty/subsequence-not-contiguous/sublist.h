#pragma once

#include <vector>

namespace sublist {

enum class List_comparison { equal, sublist, superlist, unequal };

// How list_one relates to list_two: sublist means list_one appears inside list_two.
List_comparison sublist(const std::vector<int>& list_one, const std::vector<int>& list_two);

}  // namespace sublist
