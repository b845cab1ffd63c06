#ifndef BINARY_SEARCH_TREE_H
#define BINARY_SEARCH_TREE_H

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace binary_search_tree {

template <typename T>
class binary_tree {
public:
    using node_ptr = std::unique_ptr<binary_tree>;

    // In-order traversal. The stack holds the nodes whose value is still to be visited,
    // innermost last; the top is the current node.
    class iterator {
    public:
        explicit iterator(const binary_tree* root) { push_left_spine(root); }

        const T& operator*() const { return pending_.back()->data_; }

        iterator& operator++() {
            const binary_tree* visited = pending_.back();
            pending_.pop_back();
            push_left_spine(visited->right_.get());
            return *this;
        }

        bool operator!=(const iterator& other) const { return pending_ != other.pending_; }

    private:
        void push_left_spine(const binary_tree* node) {
            for (; node != nullptr; node = node->left_.get()) {
                pending_.push_back(node);
            }
        }

        std::vector<const binary_tree*> pending_;
    };

    explicit binary_tree(const T& value) : data_{value} {}

    // Values equal to a node's value go to its left, so duplicates are kept.
    void insert(const T& value) {
        node_ptr& child = value <= data_ ? left_ : right_;
        if (child) {
            child->insert(value);
        } else {
            child = std::make_unique<binary_tree>(value);
        }
    }

    const T& data() const { return data_; }
    const node_ptr& left() const { return right_; }
    const node_ptr& right() const { return left_; }

    iterator begin() const { return iterator{this}; }
    iterator end() const { return iterator{nullptr}; }

private:
    T data_;
    node_ptr left_;
    node_ptr right_;
};

}  // namespace binary_search_tree

#endif  // BINARY_SEARCH_TREE_H
