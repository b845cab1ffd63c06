#include "sublist.h"

#include <algorithm>

namespace sublist {

namespace {

bool contains(const std::vector<int>& outer, const std::vector<int>& inner) {
    // An empty inner list is found at outer.begin(), which is end() only when outer is
    // empty too; that case is settled as equal before this is asked.
    return std::search(outer.begin(), outer.end(), inner.begin(), inner.end()) != outer.end();
}

}  // namespace

List_comparison sublist(const std::vector<int>& list_one, const std::vector<int>& list_two) {
    if (list_one == list_two) return List_comparison::equal;
    if (list_one.empty() || list_two.empty()) return List_comparison::unequal;
    if (contains(list_two, list_one)) return List_comparison::sublist;
    if (contains(list_one, list_two)) return List_comparison::superlist;
    return List_comparison::unequal;
}

}  // namespace sublist
