// A phone-number solution that rejects exactly what the reference rejects but gives no
// digits for what it accepts: the honest twin of the stream forgers that start from it.
#include "phone_number.h"

#include <cctype>
#include <stdexcept>

namespace phone_number {

phone_number::phone_number(const std::string& text) {
    std::string digits;
    for (const char c : text) {
        if (std::isdigit(static_cast<unsigned char>(c))) digits += c;
    }
    if (digits.size() == 11 && digits.front() == '1') digits.erase(0, 1);
    if (digits.size() != 10 || digits[0] < '2' || digits[3] < '2') {
        throw std::domain_error("not a valid NANP number: " + text);
    }
}

std::string phone_number::number() const { return digits_; }

}  // namespace phone_number
