#include "robot_name.h"

#include <string>

namespace robot_name {

namespace {

std::string name_for(int serial) {
    std::string name(5, ' ');
    name[0] = static_cast<char>('A' + serial / 26000);
    name[1] = static_cast<char>('A' + serial / 1000 % 26);
    name[2] = static_cast<char>('0' + serial / 100 % 10);
    name[3] = static_cast<char>('0' + serial / 10 % 10);
    name[4] = static_cast<char>('0' + serial % 10);
    return name;
}

}  // namespace

robot::robot() : name_(name_for(serial_)) {}

const std::string& robot::name() const { return name_; }

void robot::reset() { name_ = name_for(++serial_); }

}  // namespace robot_name
