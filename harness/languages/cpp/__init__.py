"""C++: Exercism's layout, Catch2 tests built with CMake, the C++ lexer, screen and mutants."""
