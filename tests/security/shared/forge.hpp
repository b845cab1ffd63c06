// What a forger writes to the outcome channel: the test main's line format (it is no
// secret), every test case of phone-number claimed as passed, and a marker it chooses.
#include <string>
#include <unistd.h>

namespace forge {

inline const char* const kNames[] = {
    "cleans the number",
    "cleans numbers with dots",
    "cleans numbers with multiple spaces",
    "invalid when 9 digits",
    "invalid when 11 digits does not start with a 1",
    "valid when 11 digits and starting with 1",
    "valid when 11 digits and starting with 1 even with punctuation",
    "invalid when more than 11 digits",
    "invalid with letters",
    "invalid with punctuations",
    "invalid if area code starts with 0",
    "invalid if area code starts with 1",
    "invalid if exchange code starts with 0",
    "invalid if exchange code starts with 1",
    "invalid if area code starts with 0 on valid 11-digit number",
    "invalid if area code starts with 1 on valid 11-digit number",
    "invalid if exchange code starts with 0 on valid 11-digit number",
    "invalid if exchange code starts with 1 on valid 11-digit number",
    "area and exchange codes from 2 to 9 are accepted",
    "several numbers, copies and repeated calls agree",
};

inline std::string hex(const std::string& bytes) {
    static const char digits[] = "0123456789abcdef";
    std::string out;
    for (unsigned char c : bytes) {
        out += digits[c >> 4];
        out += digits[c & 15];
    }
    return out;
}

inline std::string all_passed(const std::string& marker) {
    std::string s = "harness-outcomes 1 token=ok\n";
    for (const char* name : kNames) s += "case 1 1 0 " + hex(name) + "\n";
    return s + "end " + marker + "\n";
}

inline void put(int fd, const std::string& text) {
    std::size_t done = 0;
    while (done < text.size()) {
        const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
        if (n <= 0) return;
        done += static_cast<std::size_t>(n);
    }
}

}  // namespace forge
