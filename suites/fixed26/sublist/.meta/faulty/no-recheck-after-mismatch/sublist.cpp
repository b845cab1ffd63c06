#include "sublist.h"

#include <cstddef>

namespace sublist {

namespace {

bool contains(const std::vector<int>& outer, const std::vector<int>& inner) {
    if (inner.empty()) return true;
    std::size_t matched = 0;
    for (const int value : outer) {
        matched = value == inner[matched] ? matched + 1 : 0;
        if (matched == inner.size()) return true;
    }
    return false;
}

}  // namespace

List_comparison sublist(const std::vector<int>& list_one, const std::vector<int>& list_two) {
    if (list_one == list_two) return List_comparison::equal;
    if (contains(list_two, list_one)) return List_comparison::sublist;
    if (contains(list_one, list_two)) return List_comparison::superlist;
    return List_comparison::unequal;
}

}  // namespace sublist
