#include "phone_number.h"

#include <cctype>
#include <stdexcept>

namespace phone_number {

phone_number::phone_number(const std::string& text) {
    for (const char c : text) {
        if (std::isdigit(static_cast<unsigned char>(c))) digits_ += c;
    }
    if (digits_.size() == 11 && digits_.front() == '1') digits_.erase(0, 1);
    if (digits_.size() != 10 || digits_[0] < '2' || digits_[3] < '2') throw std::domain_error("invalid");
}

phone_number::~phone_number() noexcept(false) { throw std::domain_error("gone"); }

std::string phone_number::number() const { return digits_; }

}  // namespace phone_number
