"""Exercise folders laid out the way upstream Exercism C++ exercises are: a CMakeLists.txt
with the EXERCISM_TEST_SUITE switch (the system Catch2's precompiled main) and, without
it, Catch2's single header vendored as test/catch.hpp and compiled into the binary from
test/tests-main.cpp; tests that include one or the other."""

from __future__ import annotations

import shutil
from pathlib import Path

# The layout and switches of an upstream exercise's build, written here in our own words.
CMAKE = """\
cmake_minimum_required(VERSION 3.5.1)
get_filename_component(exercise ${CMAKE_CURRENT_SOURCE_DIR} NAME)
project(${exercise} CXX)
string(REPLACE "-" "_" file ${exercise})

if(EXISTS ${CMAKE_CURRENT_SOURCE_DIR}/${file}.cpp)
    set(exercise_cpp ${file}.cpp)
else()
    set(exercise_cpp "")
endif()

if(EXERCISM_TEST_SUITE)
    find_package(Catch2 REQUIRED)
    add_executable(${exercise} ${file}_test.cpp ${exercise_cpp} ${file}.h)
    target_link_libraries(${exercise} PRIVATE Catch2::Catch2WithMain)
    target_compile_definitions(${exercise} PRIVATE EXERCISM_TEST_SUITE)
else()
    add_executable(${exercise} ${file}_test.cpp ${exercise_cpp} ${file}.h test/tests-main.cpp)
endif()

set_target_properties(${exercise} PROPERTIES CXX_STANDARD 17 CXX_STANDARD_REQUIRED OFF CXX_EXTENSIONS OFF)
set(CMAKE_BUILD_TYPE Debug)
if("${CMAKE_CXX_COMPILER_ID}" STREQUAL "GNU" OR "${CMAKE_CXX_COMPILER_ID}" MATCHES "Clang")
    set_target_properties(${exercise} PROPERTIES COMPILE_FLAGS "-Wall -Wextra -Wpedantic -Werror")
endif()
if(${EXERCISM_RUN_ALL_TESTS})
    target_compile_definitions(${exercise} PRIVATE EXERCISM_RUN_ALL_TESTS)
endif()
add_custom_target(test_${exercise} ALL DEPENDS ${exercise} COMMAND ${exercise})
"""

TESTS_MAIN = '#define CATCH_CONFIG_MAIN\n#include "catch.hpp"\n'

# How an upstream test file picks its Catch2 header.
INCLUDE_SWITCH = '#ifdef EXERCISM_TEST_SUITE\n#include <catch2/catch.hpp>\n#else\n#include "test/catch.hpp"\n#endif\n'
# ... in the exercises Exercism's current C++ runner builds against Catch2 v3.
INCLUDE_SWITCH_V3 = ('#ifdef EXERCISM_TEST_SUITE\n#include <catch2/catch_all.hpp>\n#else\n#include "test/catch.hpp"\n'
                     '#endif\n')


def upstream_copy(task_dir: Path, dest_root: Path, catch_hpp: bytes, switch: bool | str = True) -> Path:
    """One of our tasks (a Catch2 v2 test including <catch2/catch.hpp>, no extra libraries)
    rewritten into the upstream layout under `dest_root`, with `catch_hpp` vendored. With
    `switch=False` its test always includes the vendored header, as exercises without an
    EXERCISM_TEST_SUITE branch in their tests do; a string is the test's include lines."""
    dest = dest_root / task_dir.name
    shutil.copytree(task_dir, dest)
    (dest / "CMakeLists.txt").write_text(CMAKE)
    test = dest / f"{task_dir.name.replace('-', '_')}_test.cpp"
    include = switch if isinstance(switch, str) else INCLUDE_SWITCH if switch else '#include "test/catch.hpp"\n'
    text = test.read_text()
    assert "#include <catch2/catch.hpp>\n" in text, test
    test.write_text(text.replace("#include <catch2/catch.hpp>\n", include))
    (dest / "test").mkdir()
    (dest / "test" / "catch.hpp").write_bytes(catch_hpp)
    (dest / "test" / "tests-main.cpp").write_text(TESTS_MAIN)
    return dest
