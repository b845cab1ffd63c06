#include "linked_list.h"

#include <catch2/catch.hpp>

// `delete` is a C++ keyword, so the canonical "delete" operation is called `erase` here.

TEST_CASE("pop gets element from the list", "[7f7e3987-b954-41b8-8084-99beca08752c]") {
    linked_list::List<int> list{};
    list.push(7);
    REQUIRE(list.pop() == 7);
}

#if defined(EXERCISM_RUN_ALL_TESTS)

TEST_CASE("push/pop respectively add/remove at the end of the list", "[c3f67e5d-cfa2-4c3e-a18f-7ce999c3c885]") {
    linked_list::List<int> list{};
    list.push(11);
    list.push(13);
    REQUIRE(list.pop() == 13);
    REQUIRE(list.pop() == 11);
}

TEST_CASE("shift gets an element from the list", "[00ea24ce-4f5c-4432-abb4-cc6e85462657]") {
    linked_list::List<int> list{};
    list.push(17);
    REQUIRE(list.shift() == 17);
}

TEST_CASE("shift gets first element from the list", "[37962ee0-3324-4a29-b588-5a4c861e6564]") {
    linked_list::List<int> list{};
    list.push(23);
    list.push(5);
    REQUIRE(list.shift() == 23);
    REQUIRE(list.shift() == 5);
}

TEST_CASE("unshift adds element at start of the list", "[30a3586b-e9dc-43fb-9a73-2770cec2c718]") {
    linked_list::List<int> list{};
    list.unshift(23);
    list.unshift(5);
    REQUIRE(list.shift() == 5);
    REQUIRE(list.shift() == 23);
}

TEST_CASE("pop, push, shift, and unshift can be used in any order", "[042f71e4-a8a7-4cf0-8953-7e4f3a21c42d]") {
    linked_list::List<int> list{};
    list.push(1);
    list.push(2);
    REQUIRE(list.pop() == 2);
    list.push(3);
    REQUIRE(list.shift() == 1);
    list.unshift(4);
    list.push(5);
    REQUIRE(list.shift() == 4);
    REQUIRE(list.pop() == 5);
    REQUIRE(list.shift() == 3);
}

TEST_CASE("count an empty list", "[88f65c0c-4532-4093-8295-2384fb2f37df]") {
    linked_list::List<int> list{};
    REQUIRE(list.count() == 0);
}

TEST_CASE("count a list with items", "[fc055689-5cbe-4cd9-b994-02e2abbb40a5]") {
    linked_list::List<int> list{};
    list.push(37);
    list.push(1);
    REQUIRE(list.count() == 2);
}

TEST_CASE("count is correct after mutation", "[8272cef5-130d-40ea-b7f6-5ffd0790d650]") {
    linked_list::List<int> list{};
    list.push(31);
    REQUIRE(list.count() == 1);
    list.unshift(43);
    REQUIRE(list.count() == 2);
    list.shift();
    REQUIRE(list.count() == 1);
    list.pop();
    REQUIRE(list.count() == 0);
}

TEST_CASE("popping to empty doesn't break the list", "[229b8f7a-bd8a-4798-b64f-0dc0bb356d95]") {
    linked_list::List<int> list{};
    list.push(41);
    list.push(59);
    list.pop();
    list.pop();
    list.push(47);
    REQUIRE(list.count() == 1);
    REQUIRE(list.pop() == 47);
}

TEST_CASE("shifting to empty doesn't break the list", "[4e1948b4-514e-424b-a3cf-a1ebbfa2d1ad]") {
    linked_list::List<int> list{};
    list.push(41);
    list.push(59);
    list.shift();
    list.shift();
    list.push(47);
    REQUIRE(list.count() == 1);
    REQUIRE(list.shift() == 47);
}

TEST_CASE("deletes the only element", "[e8f7c600-d597-4f79-949d-8ad8bae895a6]") {
    linked_list::List<int> list{};
    list.push(61);
    list.erase(61);
    REQUIRE(list.count() == 0);
}

TEST_CASE("deletes the element with the specified value from the list", "[fd65e422-51f3-45c0-9fd0-c33da638f89b]") {
    linked_list::List<int> list{};
    list.push(71);
    list.push(83);
    list.push(79);
    list.erase(83);
    REQUIRE(list.count() == 2);
    REQUIRE(list.pop() == 79);
    REQUIRE(list.shift() == 71);
}

TEST_CASE("deletes the element with the specified value from the list, re-assigns tail", "[59db191a-b17f-4ab7-9c5c-60711ec1d013]") {
    linked_list::List<int> list{};
    list.push(71);
    list.push(83);
    list.push(79);
    list.erase(83);
    REQUIRE(list.count() == 2);
    REQUIRE(list.pop() == 79);
    REQUIRE(list.pop() == 71);
}

TEST_CASE("deletes the element with the specified value from the list, re-assigns head", "[58242222-5d39-415b-951d-8128247f8993]") {
    linked_list::List<int> list{};
    list.push(71);
    list.push(83);
    list.push(79);
    list.erase(83);
    REQUIRE(list.count() == 2);
    REQUIRE(list.shift() == 71);
    REQUIRE(list.shift() == 79);
}

TEST_CASE("deletes the first of two elements", "[ee3729ee-3405-4bd2-9bad-de0d4aa5d647]") {
    linked_list::List<int> list{};
    list.push(97);
    list.push(101);
    list.erase(97);
    REQUIRE(list.count() == 1);
    REQUIRE(list.pop() == 101);
}

TEST_CASE("deletes the second of two elements", "[47e3b3b4-b82c-4c23-8c1a-ceb9b17cb9fb]") {
    linked_list::List<int> list{};
    list.push(97);
    list.push(101);
    list.erase(101);
    REQUIRE(list.count() == 1);
    REQUIRE(list.pop() == 97);
}

TEST_CASE("delete does not modify the list if the element is not found", "[7b420958-f285-4922-b8f9-10d9dcab5179]") {
    linked_list::List<int> list{};
    list.push(89);
    list.erase(103);
    REQUIRE(list.count() == 1);
}

TEST_CASE("deletes only the first occurrence", "[7e04828f-6082-44e3-a059-201c63252a76]") {
    linked_list::List<int> list{};
    list.push(73);
    list.push(9);
    list.push(9);
    list.push(107);
    list.erase(9);
    REQUIRE(list.count() == 3);
    REQUIRE(list.pop() == 107);
    REQUIRE(list.pop() == 9);
    REQUIRE(list.pop() == 73);
}

#endif
