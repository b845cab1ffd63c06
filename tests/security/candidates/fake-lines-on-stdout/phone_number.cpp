#include "phone_number.h"

#include <iostream>

#include "shared/forge.hpp"

namespace {
const bool printed = [] {
    const std::string fake = forge::all_passed(std::string(64, 'a'));
    std::cout << fake << std::flush;
    std::cerr << fake << std::flush;
    return true;
}();
}  // namespace

namespace phone_number {

phone_number::phone_number(const std::string&) {}

std::string phone_number::number() const {
    std::cout << forge::all_passed(std::string(64, 'b'));
    return "0000000000";
}

}  // namespace phone_number
