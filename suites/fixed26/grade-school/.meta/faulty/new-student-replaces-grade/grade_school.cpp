#include "grade_school.h"

#include <algorithm>

namespace grade_school {

void school::add(const std::string& name, int grade) {
    roster_[grade] = {name};
}

std::vector<std::string> school::grade(int grade) const {
    // find, not operator[]: looking a grade up must not enrol an empty one.
    const auto found = roster_.find(grade);
    return found == roster_.end() ? std::vector<std::string>{} : found->second;
}

}  // namespace grade_school
