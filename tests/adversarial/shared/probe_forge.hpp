// What a forger of the probe's stream writes. The framing is no secret (the probe runtime
// is on the include path of every build), so the forger writes a well-formed, complete
// stream in which every call claims the outcome it chooses. The claim used here is the
// one a candidate without a working solution can make for every call at once: "it threw
// std::domain_error", the outcome of every invalid number.
#include <string>
#include <unistd.h>

namespace probe_forge {

constexpr const char* kRejected = R"({"o":[{"x":"std::domain_error"}]})";

inline std::string hex(const std::string& bytes) {
    static const char digits[] = "0123456789abcdef";
    std::string out;
    for (unsigned char c : bytes) {
        out += digits[c >> 4];
        out += digits[c & 15];
    }
    return out;
}

inline std::string stream(std::size_t cases, const std::string& record = kRejected) {
    std::string s = "probe 1 " + std::to_string(cases) + "\n";
    for (std::size_t i = 0; i < cases; ++i) {
        const std::string n = std::to_string(i);
        s += "case " + n + " " + hex("call " + n) + "\nrec " + n + " 0 " + record + "\nend " + n + " 1\n";
    }
    return s + "done " + std::to_string(cases) + "\n";
}

inline void put(int fd, const std::string& text) {
    std::size_t done = 0;
    while (done < text.size()) {
        const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
        if (n <= 0) return;
        done += static_cast<std::size_t>(n);
    }
}

}  // namespace probe_forge
