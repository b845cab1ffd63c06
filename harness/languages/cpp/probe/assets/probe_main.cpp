// The probe program's main, linked in place of the harness test main: it runs every
// registered case and writes the stream (include/harness_probe.hpp).
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
