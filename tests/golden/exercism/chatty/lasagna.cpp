#include "lasagna.h"

#include <iostream>
#include <string>

namespace lasagna {

int expected_minutes_in_oven() {
    std::cout << "  checking the oven...  \n";
    return 40;
}

int remaining_minutes_in_oven(int actual_minutes_in_oven) {
    for (int minute = 1; minute <= 40; ++minute) std::cout << "minute " << minute << " of the oven timer\n";
    return expected_minutes_in_oven() - actual_minutes_in_oven;
}

int preparation_time_in_minutes(int number_of_layers) { return 2 * number_of_layers; }

int elapsed_time_in_minutes(int number_of_layers, int actual_minutes_in_oven) {
    return preparation_time_in_minutes(number_of_layers) + actual_minutes_in_oven;
}

}  // namespace lasagna
