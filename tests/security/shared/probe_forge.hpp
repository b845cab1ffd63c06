// What a forger of the probe's stream writes. The framing is no secret (the probe runtime
// is on the include path of every build), so the forger writes a well-formed, complete
// stream in which every call claims the outcome it chooses. The claim used here is the
// one a candidate without a working solution can make for every call at once: "it threw
// std::domain_error", the outcome of every invalid number.
#include <string>

#include "shared/forge.hpp"

namespace probe_forge {

constexpr const char* kRejected = R"({"o":[{"x":"std::domain_error"}]})";

inline std::string stream(std::size_t cases, const std::string& record = kRejected) {
    std::string s = "probe 1 " + std::to_string(cases) + "\n";
    for (std::size_t i = 0; i < cases; ++i) {
        const std::string n = std::to_string(i);
        s += "case " + n + " " + forge::hex("call " + n) + "\nrec " + n + " 0 " + record + "\nend " + n + " 1\n";
    }
    return s + "done " + std::to_string(cases) + "\n";
}

inline void put(int fd, const std::string& text) { forge::put(fd, text); }

}  // namespace probe_forge
