#include "clock.h"

namespace date_independent {

namespace {

const int minutes_per_hour = 60;
const int minutes_per_day = 24 * minutes_per_hour;

std::string two_digits(int n) {
    return {static_cast<char>('0' + n / 10), static_cast<char>('0' + n % 10)};
}

}  // namespace

// % keeps the sign of the dividend, so a negative offset needs one more day added.
clock::clock(int minutes) : minutes_{(minutes % minutes_per_day + minutes_per_day) % minutes_per_day} {}

clock clock::at(int hour, int minute) {
    return clock{hour * minutes_per_hour + minute};
}

clock clock::plus(int minutes) const {
    return clock{minutes_ + minutes};
}

clock::operator std::string() const {
    return std::to_string(minutes_ / minutes_per_hour) + ":" + two_digits(minutes_ % minutes_per_hour);
}

bool clock::operator==(const clock& other) const {
    return minutes_ == other.minutes_;
}

bool clock::operator!=(const clock& other) const {
    return !(*this == other);
}

}  // namespace date_independent
