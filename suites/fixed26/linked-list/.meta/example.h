#pragma once

#include <cstddef>
#include <stdexcept>
#include <utility>

namespace linked_list {

template <typename T>
class List {
    struct Node {
        T value;
        Node* prev;
        Node* next;
    };

public:
    List() = default;
    List(const List&) = delete;
    List& operator=(const List&) = delete;
    ~List() {
        while (head_ != nullptr) unlink(head_);
    }

    void push(T value) {
        Node* node = new Node{std::move(value), tail_, nullptr};
        (tail_ != nullptr ? tail_->next : head_) = node;
        tail_ = node;
        ++count_;
    }

    void unshift(T value) {
        Node* node = new Node{std::move(value), nullptr, head_};
        (head_ != nullptr ? head_->prev : tail_) = node;
        head_ = node;
        ++count_;
    }

    T pop() { return take(tail_); }
    T shift() { return take(head_); }

    std::size_t count() const { return count_; }

    bool erase(const T& value) {
        for (Node* node = head_; node != nullptr; node = node->next) {
            if (node->value == value) {
                unlink(node);
                return true;
            }
        }
        return false;
    }

private:
    T take(Node* node) {
        if (node == nullptr) throw std::runtime_error("the list is empty");
        T value = std::move(node->value);
        unlink(node);
        return value;
    }

    // Detaches the node from its neighbours, or from head_/tail_ at an end, and frees it.
    void unlink(Node* node) {
        (node->prev != nullptr ? node->prev->next : head_) = node->next;
        (node->next != nullptr ? node->next->prev : tail_) = node->prev;
        delete node;
        --count_;
    }

    Node* head_{nullptr};
    Node* tail_{nullptr};
    std::size_t count_{0};
};

}  // namespace linked_list
