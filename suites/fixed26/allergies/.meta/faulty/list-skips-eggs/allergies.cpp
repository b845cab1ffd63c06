#include "allergies.h"

#include <array>
#include <cstddef>

namespace allergies {

namespace {

const std::array<const char*, 8> allergen_names{
    "eggs", "peanuts", "shellfish", "strawberries", "tomatoes", "chocolate", "pollen", "cats",
};

}  // namespace

allergy_test::allergy_test(unsigned int score) : score_{score} {}

bool allergy_test::is_allergic_to(const std::string& item) const {
    for (std::size_t i = 0; i < allergen_names.size(); ++i) {
        if (item == allergen_names[i]) {
            return (score_ >> i) & 1u;
        }
    }
    return false;
}

std::unordered_set<std::string> allergy_test::get_allergies() const {
    std::unordered_set<std::string> found;
    for (std::size_t i = 1; i < allergen_names.size(); ++i) {
        if ((score_ >> i) & 1u) {
            found.emplace(allergen_names[i]);
        }
    }
    return found;
}

}  // namespace allergies
