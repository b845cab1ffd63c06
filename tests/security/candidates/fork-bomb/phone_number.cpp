// Before main, forks children that fork again until the process limit refuses, each child
// sleeping for ever; then the solution runs as validates_only does. The children are the
// batch's problem if anything is: the next candidate in the same session must not see them.
#include "shared/validates_only.cpp"

#include <unistd.h>

namespace {
[[maybe_unused]] const bool bombed = [] {
    const pid_t parent = ::getpid();
    for (int i = 0; i < 10000; ++i) {
        const pid_t child = ::fork();
        if (child < 0) break;
        if (child == 0) {
            for (;;) ::pause();
        }
    }
    return ::getpid() == parent;
}();
}  // namespace
