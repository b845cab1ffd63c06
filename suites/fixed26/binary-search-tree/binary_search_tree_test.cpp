#include "binary_search_tree.h"

#include <catch2/catch.hpp>

#include <vector>

namespace {

template <typename T>
using tree_ptr = std::unique_ptr<binary_search_tree::binary_tree<T>>;

// The first value becomes the root; the rest are inserted in order.
template <typename T>
tree_ptr<T> build(const std::vector<T>& values) {
    const T& first = values.front();
    tree_ptr<T> root{new binary_search_tree::binary_tree<T>(first)};
    for (auto value = values.begin() + 1; value != values.end(); ++value) {
        root->insert(*value);
    }
    return root;
}

// One node: its value, and whether it has a left and a right child.
template <typename T>
void check_node(const tree_ptr<T>& node, const T& value, bool has_left, bool has_right) {
    REQUIRE(node->data() == value);
    REQUIRE(static_cast<bool>(node->left()) == has_left);
    REQUIRE(static_cast<bool>(node->right()) == has_right);
}

template <typename T>
std::vector<T> in_order(const tree_ptr<T>& root) {
    std::vector<T> seen;
    for (auto& value : *root) {
        seen.push_back(value);
    }
    return seen;
}

}  // namespace

TEST_CASE("data is retained", "[e9c93a78-c536-4750-a336-94583d23fafa]") {
    auto tree = build<uint32_t>({4});
    check_node<uint32_t>(tree, 4, false, false);
}

#if defined(EXERCISM_RUN_ALL_TESTS)

TEST_CASE("insert data at proper node -> smaller number at left node", "[7a95c9e8-69f6-476a-b0c4-4170cb3f7c91]") {
    auto tree = build<uint32_t>({4, 2});
    check_node<uint32_t>(tree, 4, true, false);
    check_node<uint32_t>(tree->left(), 2, false, false);
}

TEST_CASE("insert data at proper node -> same number at left node", "[22b89499-9805-4703-a159-1a6e434c1585]") {
    auto tree = build<uint32_t>({4, 4});
    check_node<uint32_t>(tree, 4, true, false);
    check_node<uint32_t>(tree->left(), 4, false, false);
}

TEST_CASE("insert data at proper node -> greater number at right node", "[2e85fdde-77b1-41ed-b6ac-26ce6b663e34]") {
    auto tree = build<uint32_t>({4, 5});
    check_node<uint32_t>(tree, 4, false, true);
    check_node<uint32_t>(tree->right(), 5, false, false);
}

TEST_CASE("can create complex tree", "[dd898658-40ab-41d0-965e-7f145bf66e0b]") {
    auto tree = build<uint32_t>({4, 2, 6, 1, 3, 5, 7});
    check_node<uint32_t>(tree, 4, true, true);
    check_node<uint32_t>(tree->left(), 2, true, true);
    check_node<uint32_t>(tree->right(), 6, true, true);
    check_node<uint32_t>(tree->left()->left(), 1, false, false);
    check_node<uint32_t>(tree->left()->right(), 3, false, false);
    check_node<uint32_t>(tree->right()->left(), 5, false, false);
    check_node<uint32_t>(tree->right()->right(), 7, false, false);
}

TEST_CASE("can sort data -> can sort single number", "[9e0c06ef-aeca-4202-b8e4-97f1ed057d56]") {
    REQUIRE(in_order(build<uint32_t>({2})) == std::vector<uint32_t>{2});
}

TEST_CASE("can sort data -> can sort if second number is smaller than first", "[425e6d07-fceb-4681-a4f4-e46920e380bb]") {
    REQUIRE(in_order(build<uint32_t>({2, 1})) == std::vector<uint32_t>{1, 2});
}

TEST_CASE("can sort data -> can sort if second number is same as first", "[bd7532cc-6988-4259-bac8-1d50140079ab]") {
    REQUIRE(in_order(build<uint32_t>({2, 2})) == std::vector<uint32_t>{2, 2});
}

TEST_CASE("can sort data -> can sort if second number is greater than first", "[b6d1b3a5-9d79-44fd-9013-c83ca92ddd36]") {
    REQUIRE(in_order(build<uint32_t>({2, 3})) == std::vector<uint32_t>{2, 3});
}

TEST_CASE("can sort data -> can sort complex tree", "[d00ec9bd-1288-4171-b968-d44d0808c1c8]") {
    REQUIRE(in_order(build<uint32_t>({2, 1, 3, 6, 7, 5})) == std::vector<uint32_t>{1, 2, 3, 5, 6, 7});
}

// Track-only cases: the tree works for strings as well.

TEST_CASE("can create complex tree of strings", "[strings-shape]") {
    auto tree = build<std::string>({"delicious", "ballon", "flag", "apple", "cat", "elispsis", "grains"});
    check_node<std::string>(tree, "delicious", true, true);
    check_node<std::string>(tree->left(), "ballon", true, true);
    check_node<std::string>(tree->right(), "flag", true, true);
    check_node<std::string>(tree->left()->left(), "apple", false, false);
    check_node<std::string>(tree->left()->right(), "cat", false, false);
    check_node<std::string>(tree->right()->left(), "elispsis", false, false);
    check_node<std::string>(tree->right()->right(), "grains", false, false);
}

TEST_CASE("can sort complex tree of strings", "[strings-sort]") {
    auto tree = build<std::string>({"A", "few", "random", "strings", "that", "should", "be", "sorted"});
    REQUIRE(in_order(tree) ==
            std::vector<std::string>{"A", "be", "few", "random", "should", "sorted", "strings", "that"});
}

#endif
