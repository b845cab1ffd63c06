#include "clock.h"

namespace date_independent {

namespace {

const int minutes_per_hour = 60;
const int minutes_per_day = 24 * minutes_per_hour;

std::string two_digits(int n) {
    return {static_cast<char>('0' + n / 10), static_cast<char>('0' + n % 10)};
}

}  // namespace

clock::clock(int hour, int minute) : hour_{hour}, minute_{minute} {}

clock clock::at(int hour, int minute) {
    return clock{hour, minute};
}

clock clock::plus(int minutes) const {
    return clock{hour_, minute_ + minutes};
}

clock::operator std::string() const {
    const int total = ((hour_ * minutes_per_hour + minute_) % minutes_per_day + minutes_per_day) % minutes_per_day;
    return two_digits(total / minutes_per_hour) + ":" + two_digits(total % minutes_per_hour);
}

bool clock::operator==(const clock& other) const {
    return hour_ == other.hour_ && minute_ == other.minute_;
}

bool clock::operator!=(const clock& other) const {
    return !(*this == other);
}

}  // namespace date_independent
