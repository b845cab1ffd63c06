// The harness-owned test main, compiled once into the sandbox image (and into the local
// backend's cache) and linked into every task's test binary instead of Catch2's own main,
// so a test round never compiles Catch2's implementation. It adds one reporter: Catch2's
// XML with each test's captured output capped. (The verifier does not use it: it builds
// the task with the probe's own main, harness/languages/cpp/probe/.)
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include <cstddef>
#include <string>

namespace {

// Catch2's XML reporter captures what each test writes to std::cout and std::cerr and
// embeds all of it in the report. A test that prints 100 MB would make the report
// unreadable; this reporter keeps the first part of each test's output and says how much
// it dropped.
class CappedXmlReporter : public Catch::XmlReporter {
public:
    using Catch::XmlReporter::XmlReporter;

    static std::string getDescription() {
        return "Catch2's XML report with each test's captured output capped";
    }

    void testCaseEnded(Catch::TestCaseStats const& stats) override {
        Catch::TestCaseStats capped(stats.testInfo, stats.totals, cap(stats.stdOut), cap(stats.stdErr),
                                    stats.aborting);
        Catch::XmlReporter::testCaseEnded(capped);
    }

private:
    static constexpr std::size_t kCap = 16 * 1024;

    static std::string cap(std::string const& text) {
        if (text.size() <= kCap) return text;
        return text.substr(0, kCap) + "\n[... " + std::to_string(text.size() - kCap) + " more bytes dropped]";
    }
};

}  // namespace

CATCH_REGISTER_REPORTER("harness-xml", CappedXmlReporter)

int main(int argc, char* argv[]) { return Catch::Session().run(argc, argv); }
