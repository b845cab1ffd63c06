#include "clock.h"

namespace date_independent {

namespace {

const int minutes_per_hour = 60;
const int hours_per_day = 24;

std::string two_digits(int n) {
    return {static_cast<char>('0' + n / 10), static_cast<char>('0' + n % 10)};
}

int wrap(int value, int modulus) {
    return (value % modulus + modulus) % modulus;
}

}  // namespace

clock::clock(int minutes) : minutes_{minutes} {}

clock clock::at(int hour, int minute) {
    const int hours = wrap(hour + minute / minutes_per_hour, hours_per_day);
    return clock{hours * minutes_per_hour + wrap(minute, minutes_per_hour)};
}

clock clock::plus(int minutes) const {
    return at(0, minutes_ + minutes);
}

clock::operator std::string() const {
    return two_digits(minutes_ / minutes_per_hour) + ":" + two_digits(minutes_ % minutes_per_hour);
}

bool clock::operator==(const clock& other) const {
    return minutes_ == other.minutes_;
}

bool clock::operator!=(const clock& other) const {
    return !(*this == other);
}

}  // namespace date_independent
