// Rewrites the probe's stream after main has returned, from a static destructor: it opens
// the stream's file anew through /proc/self/fd/4, reads what the probe wrote, replaces
// every empty value `{"v":""}` (what validates_only.cpp gives for a valid number) with the
// text it chooses, and writes the stream back in place.
#include <fcntl.h>
#include <unistd.h>

#include <string>

namespace rewrite_at_exit {

inline std::string replaced(std::string text, const std::string& from, const std::string& to, bool every) {
    for (std::size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size())) {
        text.replace(at, from.size(), to);
        if (!every) break;
    }
    return text;
}

struct Rewrite {
    std::string to;
    bool every = true;

    ~Rewrite() {
        const int fd = ::open("/proc/self/fd/4", O_RDWR);
        if (fd < 0) return;
        std::string text;
        char buf[1 << 16];
        for (ssize_t n; (n = ::pread(fd, buf, sizeof buf, static_cast<off_t>(text.size()))) > 0;) text.append(buf, n);
        text = replaced(text, "{\"v\":\"\"}", to, every);
        if (::ftruncate(fd, 0) != 0) return;
        for (std::size_t at = 0; at < text.size();) {
            const ssize_t n = ::pwrite(fd, text.data() + at, text.size() - at, static_cast<off_t>(at));
            if (n <= 0) break;
            at += static_cast<std::size_t>(n);
        }
        ::close(fd);
    }
};

}  // namespace rewrite_at_exit
