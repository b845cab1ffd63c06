// The probe program's main, linked in place of the harness test main: it runs every
// registered case and writes the stream (include/harness_probe.hpp). The runtime comes
// first, where the image's precompiled form of it can serve; it does not read
// CATCH_CONFIG_MAIN, so this order makes the same program as the stand-in's own.
#include <harness_probe.hpp>
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
