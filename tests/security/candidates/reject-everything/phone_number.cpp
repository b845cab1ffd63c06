#include "phone_number.h"

#include <stdexcept>

namespace phone_number {

phone_number::phone_number(const std::string& text) { throw std::domain_error("rejected: " + text); }

std::string phone_number::number() const { return digits_; }

}  // namespace phone_number
