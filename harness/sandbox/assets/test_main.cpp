// The harness-owned test main, compiled once into the sandbox image (and into the local
// backend's cache) and linked into every task's test binary instead of Catch2's own main.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

int main(int argc, char* argv[]) {
    return Catch::Session().run(argc, argv);
}
