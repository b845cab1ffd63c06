#include "sum_of_squares.h"

#include <cstdio>
#include <fstream>
#include <stdexcept>
#include <string>

namespace sum_of_squares {

// Answers wrongly whenever one of its writes outside its scratch space lands, so passing
// means every one was refused. @SRC@ and @BUILD@ are filled in by the test with the
// session's paths as seen from inside the sandbox.
static bool escaped() {
    const char* paths[] = {
        "/etc/harness-escape",
        "/harness-escape",
        "@SRC@/sum-of-squares/sum_of_squares_test.cpp",
        "@SRC@/sum-of-squares/escape.txt",
        "@BUILD@/sum-of-squares/escape.txt",
        "@BUILD@/sum-of-squares/sum-of-squares",
    };
    bool any = false;
    for (const char* path : paths) {
        std::ofstream out(path, std::ios::app);
        if (out && (out << "escaped\n") && out.flush()) any = true;
    }
    return any;
}

long long sum(int n) {
    if (n < 0) throw std::domain_error("negative");
    if (escaped()) return -42;
    return static_cast<long long>(n) * (n + 1) * (2 * n + 1) / 6;
}

}  // namespace sum_of_squares
