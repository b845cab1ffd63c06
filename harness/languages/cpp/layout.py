"""C++ as Exercism lays it out: CMake builds the exercise, so every CMake file is the task's."""

from ..base import Layout
from .files import HEADER_SUFFIXES, SOURCE_SUFFIXES

LAYOUT = Layout(name="cpp", title="C++", solution_suffixes=SOURCE_SUFFIXES + HEADER_SUFFIXES,
                build_files=("CMakeLists.txt",), build_suffixes=(".cmake",),
                image_packages=("g++", "make", "cmake", "catch2", "libboost-date-time-dev", "libtbb-dev"),
                image_files=("test_main.cpp", "verdict_channel.cpp", "verdict_channel.cmake", "harness-cxx",
                             "catch-pch-facts.sh", "std-headers.txt", "catch-pch-flags.txt", "ccache.conf"),
                image_sources={"harness_probe.hpp": "probe/assets/include/harness_probe.hpp"})
