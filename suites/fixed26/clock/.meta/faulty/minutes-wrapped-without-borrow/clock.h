#pragma once

#include <string>

namespace date_independent {

class clock {
public:
    // Any hour and minute, negative or beyond a day, counted as an offset from midnight.
    static clock at(int hour, int minute);

    clock plus(int minutes) const;

    explicit operator std::string() const;

    bool operator==(const clock& other) const;
    bool operator!=(const clock& other) const;

private:
    explicit clock(int minutes);

    int minutes_;  // since midnight, always in [0, minutes per day)
};

}  // namespace date_independent
