#ifndef CIRCULAR_BUFFER_H
#define CIRCULAR_BUFFER_H

#include <cstddef>
#include <stdexcept>
#include <utility>
#include <vector>

namespace circular_buffer {

template <typename T>
class circular_buffer {
public:
    explicit circular_buffer(std::size_t capacity) : slots_(capacity) {}

    T read() {
        if (count_ == 0) {
            throw std::domain_error("the buffer is empty");
        }
        T oldest = std::move(slots_[first_]);
        first_ = (first_ + 1) % slots_.size();
        --count_;
        return oldest;
    }

    void write(T value) {
        if (count_ == slots_.size()) {
            throw std::domain_error("the buffer is full");
        }
        slots_[(first_ + count_) % slots_.size()] = std::move(value);
        ++count_;
    }

    void overwrite(T value) {
        if (count_ == slots_.size()) {
            read();
        }
        write(std::move(value));
    }

    void clear() { first_ = 0; }

private:
    // slots_[first_] is the oldest element; the count_ elements after it (wrapping round)
    // are the stored ones.
    std::vector<T> slots_;
    std::size_t first_ = 0;
    std::size_t count_ = 0;
};

}  // namespace circular_buffer

#endif  // CIRCULAR_BUFFER_H
