#include "grade_school.h"

#include <algorithm>
#include <functional>

namespace grade_school {

void school::add(const std::string& name, int grade) {
    auto& names = roster_[grade];
    names.insert(std::upper_bound(names.begin(), names.end(), name, std::greater<>{}), name);
}

std::vector<std::string> school::grade(int grade) const {
    // find, not operator[]: looking a grade up must not enrol an empty one.
    const auto found = roster_.find(grade);
    return found == roster_.end() ? std::vector<std::string>{} : found->second;
}

}  // namespace grade_school
