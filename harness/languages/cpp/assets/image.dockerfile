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

# Upstream Exercism exercises build through their EXERCISM_TEST_SUITE branch here, linking
# the distribution's precompiled Catch2::Catch2WithMain instead of compiling Catch2's main
# in every fresh build tree (languages/cpp/testrun.py); the image must provide that target.
RUN grep -q "Catch2::Catch2WithMain" /usr/lib/cmake/Catch2/Catch2Targets.cmake
