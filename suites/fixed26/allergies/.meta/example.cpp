#include "allergies.h"

#include <map>

namespace allergies {

namespace {

// Each allergen owns one bit of the score; higher bits belong to nothing we know.
const std::map<std::string, unsigned int> allergen_bits{
    {"eggs", 1},     {"peanuts", 2},    {"shellfish", 4}, {"strawberries", 8},
    {"tomatoes", 16}, {"chocolate", 32}, {"pollen", 64},   {"cats", 128},
};

}  // namespace

allergy_test::allergy_test(unsigned int score) : score_{score} {}

bool allergy_test::is_allergic_to(const std::string& item) const {
    return (score_ & allergen_bits.at(item)) != 0;
}

std::unordered_set<std::string> allergy_test::get_allergies() const {
    std::unordered_set<std::string> found;
    for (const auto& [name, bit] : allergen_bits) {
        if (score_ & bit) {
            found.emplace(name);
        }
    }
    return found;
}

}  // namespace allergies
