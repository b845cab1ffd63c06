#include "robot_name.h"

#include <random>
#include <unordered_set>

namespace robot_name {

namespace {

std::string random_name() {
    static std::mt19937 engine{std::random_device{}()};
    std::uniform_int_distribution<int> letter('A', 'Z');
    std::uniform_int_distribution<int> digit('0', '9');
    std::string name;
    for (int i = 0; i < 2; ++i) name += static_cast<char>(letter(engine));
    for (int i = 0; i < 3; ++i) name += static_cast<char>(digit(engine));
    return name;
}

// Names are never reused, even after a reset frees one: a name seen once could still be
// remembered somewhere as belonging to its first robot. The draw is only retried on a
// clash, so it stays fast while the 676,000 possible names are far from used up (and
// would never end once they all were).
std::string unused_name() {
    static std::unordered_set<std::string> handed_out;
    std::string name;
    do {
        name = random_name();
    } while (!handed_out.insert(name).second);
    return name;
}

}  // namespace

robot::robot() : name_(unused_name()) {}

const std::string& robot::name() const { return name_; }

void robot::reset() { name_ = unused_name(); }

}  // namespace robot_name
