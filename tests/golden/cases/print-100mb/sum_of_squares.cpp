#include "sum_of_squares.h"

#include <cstdio>
#include <iostream>
#include <stdexcept>
#include <string>

namespace sum_of_squares {

// Correct, but floods both the C stdio stream and std::cout with 50 MB each.
long long sum(int n) {
    if (n < 0) throw std::domain_error("negative");
    static bool printed = false;
    if (!printed) {
        printed = true;
        const std::string line(1023, 'x');
        for (int i = 0; i < 50 * 1024; ++i) {
            std::fputs(line.c_str(), stdout);
            std::fputc('\n', stdout);
            std::cout << line << '\n';
        }
        std::fflush(stdout);
    }
    return static_cast<long long>(n) * (n + 1) * (2 * n + 1) / 6;
}

}  // namespace sum_of_squares
