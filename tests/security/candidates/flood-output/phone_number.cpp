// Before main, prints 200 MiB on its standard output, then behaves as validates_only does.
#include "shared/validates_only.cpp"

#include <unistd.h>

#include <vector>

namespace {
[[maybe_unused]] const bool flooded = [] {
    const std::vector<char> block(1 << 20, 'x');
    for (int i = 0; i < 200; ++i) {
        if (::write(1, block.data(), block.size()) <= 0) break;
    }
    return true;
}();
}  // namespace
