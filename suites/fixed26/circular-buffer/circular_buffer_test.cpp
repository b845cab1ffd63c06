#include "circular_buffer.h"

#include <catch2/catch.hpp>

#include <stdexcept>
#include <string>

TEST_CASE("reading empty buffer should fail", "[28268ed4-4ff3-45f3-820e-895b44d53dfa]") {
    circular_buffer::circular_buffer<int> buffer(1);
    REQUIRE_THROWS_AS(buffer.read(), std::domain_error);
}

#if defined(EXERCISM_RUN_ALL_TESTS)

TEST_CASE("can read an item just written", "[2e6db04a-58a1-425d-ade8-ac30b5f318f3]") {
    circular_buffer::circular_buffer<int> buffer(1);
    REQUIRE_NOTHROW(buffer.write(1));
    REQUIRE(buffer.read() == 1);
}

TEST_CASE("each item may only be read once", "[90741fe8-a448-45ce-be2b-de009a24c144]") {
    circular_buffer::circular_buffer<int> buffer(1);
    REQUIRE_NOTHROW(buffer.write(1));
    REQUIRE(buffer.read() == 1);
    REQUIRE_THROWS_AS(buffer.read(), std::domain_error);
}

TEST_CASE("items are read in the order they are written", "[be0e62d5-da9c-47a8-b037-5db21827baa7]") {
    circular_buffer::circular_buffer<int> buffer(2);
    REQUIRE_NOTHROW(buffer.write(1));
    REQUIRE_NOTHROW(buffer.write(2));
    REQUIRE(buffer.read() == 1);
    REQUIRE(buffer.read() == 2);
}

TEST_CASE("full buffer can't be written to", "[2af22046-3e44-4235-bfe6-05ba60439d38]") {
    circular_buffer::circular_buffer<int> buffer(1);
    REQUIRE_NOTHROW(buffer.write(1));
    REQUIRE_THROWS_AS(buffer.write(2), std::domain_error);
}

TEST_CASE("a read frees up capacity for another write", "[547d192c-bbf0-4369-b8fa-fc37e71f2393]") {
    circular_buffer::circular_buffer<int> buffer(1);
    REQUIRE_NOTHROW(buffer.write(1));
    REQUIRE(buffer.read() == 1);
    REQUIRE_NOTHROW(buffer.write(2));
    REQUIRE(buffer.read() == 2);
}

TEST_CASE("read position is maintained even across multiple writes", "[04a56659-3a81-4113-816b-6ecb659b4471]") {
    circular_buffer::circular_buffer<int> buffer(3);
    REQUIRE_NOTHROW(buffer.write(1));
    REQUIRE_NOTHROW(buffer.write(2));
    REQUIRE(buffer.read() == 1);
    REQUIRE_NOTHROW(buffer.write(3));
    REQUIRE(buffer.read() == 2);
    REQUIRE(buffer.read() == 3);
}

TEST_CASE("items cleared out of buffer can't be read", "[60c3a19a-81a7-43d7-bb0a-f07242b1111f]") {
    circular_buffer::circular_buffer<int> buffer(1);
    REQUIRE_NOTHROW(buffer.write(1));
    buffer.clear();
    REQUIRE_THROWS_AS(buffer.read(), std::domain_error);
}

TEST_CASE("clear frees up capacity for another write", "[45f3ae89-3470-49f3-b50e-362e4b330a59]") {
    circular_buffer::circular_buffer<int> buffer(1);
    REQUIRE_NOTHROW(buffer.write(1));
    buffer.clear();
    REQUIRE_NOTHROW(buffer.write(2));
    REQUIRE(buffer.read() == 2);
}

TEST_CASE("clear does nothing on empty buffer", "[e1ac5170-a026-4725-bfbe-0cf332eddecd]") {
    circular_buffer::circular_buffer<int> buffer(1);
    buffer.clear();
    REQUIRE_NOTHROW(buffer.write(1));
    REQUIRE(buffer.read() == 1);
}

TEST_CASE("overwrite acts like write on non-full buffer", "[9c2d4f26-3ec7-453f-a895-7e7ff8ae7b5b]") {
    circular_buffer::circular_buffer<int> buffer(2);
    REQUIRE_NOTHROW(buffer.write(1));
    buffer.overwrite(2);
    REQUIRE(buffer.read() == 1);
    REQUIRE(buffer.read() == 2);
}

TEST_CASE("overwrite replaces the oldest item on full buffer", "[880f916b-5039-475c-bd5c-83463c36a147]") {
    circular_buffer::circular_buffer<int> buffer(2);
    REQUIRE_NOTHROW(buffer.write(1));
    REQUIRE_NOTHROW(buffer.write(2));
    buffer.overwrite(3);
    REQUIRE(buffer.read() == 2);
    REQUIRE(buffer.read() == 3);
}

TEST_CASE("overwrite replaces the oldest item remaining in buffer following a read",
          "[bfecab5b-aca1-4fab-a2b0-cd4af2b053c3]") {
    circular_buffer::circular_buffer<int> buffer(3);
    REQUIRE_NOTHROW(buffer.write(1));
    REQUIRE_NOTHROW(buffer.write(2));
    REQUIRE_NOTHROW(buffer.write(3));
    REQUIRE(buffer.read() == 1);
    REQUIRE_NOTHROW(buffer.write(4));
    buffer.overwrite(5);
    REQUIRE(buffer.read() == 3);
    REQUIRE(buffer.read() == 4);
    REQUIRE(buffer.read() == 5);
}

TEST_CASE("initial clear does not affect wrapping around", "[9cebe63a-c405-437b-8b62-e3fdc1ecec5a]") {
    circular_buffer::circular_buffer<int> buffer(2);
    buffer.clear();
    REQUIRE_NOTHROW(buffer.write(1));
    REQUIRE_NOTHROW(buffer.write(2));
    buffer.overwrite(3);
    buffer.overwrite(4);
    REQUIRE(buffer.read() == 3);
    REQUIRE(buffer.read() == 4);
    REQUIRE_THROWS_AS(buffer.read(), std::domain_error);
}

// Track-only cases.

TEST_CASE("full buffer can't be written to after overwrite", "[write-after-overwrite]") {
    circular_buffer::circular_buffer<int> buffer(1);
    REQUIRE_NOTHROW(buffer.write(1));
    buffer.overwrite(2);
    REQUIRE_THROWS_AS(buffer.write(3), std::domain_error);
    REQUIRE(buffer.read() == 2);
}

TEST_CASE("works with strings", "[string-elements]") {
    circular_buffer::circular_buffer<std::string> buffer(3);
    REQUIRE_NOTHROW(buffer.write("hello"));
    REQUIRE_NOTHROW(buffer.write("world"));
    REQUIRE_NOTHROW(buffer.write("zombies"));
    REQUIRE(buffer.read() == "hello");
    REQUIRE_NOTHROW(buffer.write("pants"));
    buffer.overwrite("banana");
    REQUIRE(buffer.read() == "zombies");
    REQUIRE(buffer.read() == "pants");
    REQUIRE(buffer.read() == "banana");
}

#endif
