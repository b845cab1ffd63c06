// Before main, fills /tmp and the working folder until the space runs out, then behaves as
// validates_only does: the probe's own stream is written to the full working folder.
#include "shared/validates_only.cpp"

#include <fcntl.h>
#include <unistd.h>

#include <vector>

namespace {
void fill(const char* path) {
    const int fd = ::open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (fd < 0) return;
    const std::vector<char> block(1 << 20, 'x');
    for (int i = 0; i < 4096 && ::write(fd, block.data(), block.size()) > 0; ++i) {
    }
    ::close(fd);
}
[[maybe_unused]] const bool filled = (fill("/tmp/fill"), fill("fill"), true);
}  // namespace
