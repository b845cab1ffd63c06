#include "grade_school.h"

#include <algorithm>

namespace grade_school {

void school::add(const std::string& name, int grade) {
    auto& names = roster_[grade];
    names.insert(std::upper_bound(names.begin(), names.end(), name), name);
}

std::vector<std::string> school::grade(int grade) const {
    return roster_[grade];
}

}  // namespace grade_school
