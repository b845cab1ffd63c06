# C++: compiling Catch2's implementation costs about 8 s; it is done once here, never in a
# round. Without debug information (nobody steps through Catch2) linking it into a test
# binary takes a third of the time, and a verifier links one per candidate.
COPY cpp/test_main.cpp /opt/harness/src/test_main.cpp
RUN mkdir -p /opt/harness/lib \
 && g++ -std=c++17 -O1 -c /opt/harness/src/test_main.cpp -o /opt/harness/lib/test_main.o

# The verdict channel every test run for a verdict links (verdict_channel.cpp), through the
# CMake file that the harness names as the task's CMAKE_PROJECT_INCLUDE.
COPY cpp/verdict_channel.cpp cpp/verdict_channel.cmake /opt/harness/src/
# Its local symbols are dropped, so that a candidate reading its own binary finds no name
# for where the channel keeps its state.
RUN g++ -std=c++17 -O1 -c /opt/harness/src/verdict_channel.cpp -o /opt/harness/lib/verdict_channel.o \
 && strip --discard-all /opt/harness/lib/verdict_channel.o \
 && cp /opt/harness/src/verdict_channel.cmake /opt/harness/verdict_channel.cmake

ENV HARNESS_TEST_MAIN=/opt/harness/lib/test_main.o

# A test unit may take Catch2 precompiled where that compiles the same program
# (languages/cpp/catch_pch.py decides, harness-cxx checks the rest): CMake runs compiles
# through the launcher, and what the decision needs to know of this compiler and this
# Catch2 is found here, once.
COPY cpp/harness-cxx cpp/catch-pch-facts.sh cpp/std-headers.txt cpp/catch-pch-flags.txt /opt/harness/pch-src/
RUN install -D -m 0755 /opt/harness/pch-src/harness-cxx /opt/harness/bin/harness-cxx \
 && sh /opt/harness/pch-src/catch-pch-facts.sh /opt/harness/pch-src/std-headers.txt \
       /opt/harness/pch-src/catch-pch-flags.txt /opt/harness/pch /opt/harness/pch-gch

# The probe runtime's header precompiled (languages/cpp/probe/run.py puts this folder first
# on a probe's include path): a probe's driver and main include it first, and reading it
# costs about 1.2 s of CPU a unit. GCC takes it only where a unit's flags make the same
# program of it (it checks the standard, the optimisation and every macro the header reads),
# and reads the header otherwise; made without -D and with -Wpedantic (which drops the one
# macro it adds), it fits the flags of fixed26 and of the upstream exercises. The header
# lies beside it, as GCC needs when the unit includes it again (a candidate's header may),
# and is made through a header that includes it, so that it is a system header there as it
# is when included. The header is the probe's own (the build context holds it, so the image
# changes with it).
COPY cpp/harness_probe.hpp /opt/harness/probe-pch/harness_probe.hpp
RUN printf '#include <harness_probe.hpp>\n' >/tmp/runtime.hpp \
 && g++ -std=c++17 -Wpedantic -I/opt/harness/probe-pch -x c++-header /tmp/runtime.hpp \
        -o /opt/harness/probe-pch/harness_probe.hpp.gch \
 && rm /tmp/runtime.hpp && chmod -R a+rX /opt/harness/probe-pch

# Upstream Exercism exercises build through their EXERCISM_TEST_SUITE branch here, linking
# the distribution's precompiled Catch2::Catch2WithMain instead of compiling Catch2's main
# in every fresh build tree (languages/cpp/testrun.py); the image must provide that target.
RUN grep -q "Catch2::Catch2WithMain" /usr/lib/cmake/Catch2/Catch2Targets.cmake

# CMake's detection of the compiler (its identity, ABI and features, found by building small
# programs: about 0.2 s of CPU a tree), made once here for a project of one line and kept as
# a build tree that CMake takes for one it configured before: every fresh build tree starts
# from this one (languages/cpp/testrun.py), and CMake writes the same build files as from an
# empty tree (tests/languages/cpp/test_cmake_seed.py). Only the seed project's own entries
# are left out of its cache, each with the comment lines above it, and the one it marks
# advanced that the harness's command line sets.
RUN mkdir /tmp/seed && printf 'cmake_minimum_required(VERSION 3.14)\nproject(seed CXX)\n' >/tmp/seed/CMakeLists.txt \
 && cmake -S /tmp/seed -B /tmp/seed/build >/dev/null \
 && mkdir -p /opt/harness/cmake-seed/CMakeFiles && cp -R /tmp/seed/build/CMakeFiles/3.* /opt/harness/cmake-seed/CMakeFiles/ \
 && awk '/^\/\// { notes = notes $0 "\n"; next } \
         /^(CMAKE_PROJECT_NAME|seed_[A-Za-z_]+|CMAKE_CACHEFILE_DIR|CMAKE_HOME_DIRECTORY|CMAKE_FIND_PACKAGE_REDIRECTS_DIR|CMAKE_EXPORT_COMPILE_COMMANDS(-ADVANCED)?):/ { notes = ""; next } \
         { printf "%s%s\n", notes, $0; notes = "" }' /tmp/seed/build/CMakeCache.txt >/opt/harness/cmake-seed/CMakeCache.txt \
 && grep -q '^CMAKE_CXX_COMPILER:' /opt/harness/cmake-seed/CMakeCache.txt && ! grep -q '^[^#]*seed' /opt/harness/cmake-seed/CMakeCache.txt \
 && rm -rf /tmp/seed && chmod -R a+rX /opt/harness/cmake-seed

# The compile cache (harness-cxx): ccache (installed here, not with the toolchain, which the
# local backend installs on the host too and which has no use for it there), its settings,
# and the folder a session mounts the cache's volume on. Docker gives a new volume this
# folder's owner and mode, so only the builder, which runs the compiler, can read or write
# the cache; the runner, which runs the candidate's code, cannot even list it.
RUN apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends ccache \
 && rm -rf /var/lib/apt/lists/*
COPY cpp/ccache.conf /etc/ccache.conf
RUN mkdir -m 0700 /ccache && chown 1001:1001 /ccache
