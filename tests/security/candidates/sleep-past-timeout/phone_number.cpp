#include "phone_number.h"

#include <chrono>
#include <thread>

namespace phone_number {

phone_number::phone_number(const std::string&) { std::this_thread::sleep_for(std::chrono::hours(1)); }

std::string phone_number::number() const { return "0000000000"; }

}  // namespace phone_number
