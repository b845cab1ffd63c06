#include "phone_number.h"

#include <cctype>
#include <cstdlib>
#include <new>
#include <stdexcept>

namespace {
std::size_t allocations = 0;
}  // namespace

void* operator new(std::size_t size) {
    ++allocations;
    if (void* p = std::malloc(size == 0 ? 1 : size)) return p;
    throw std::bad_alloc();
}

void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }

namespace phone_number {

phone_number::phone_number(const std::string& text) {
    for (const char c : text) {
        if (std::isdigit(static_cast<unsigned char>(c))) digits_ += c;
    }
    if (digits_.size() == 11 && digits_.front() == '1') digits_.erase(0, 1);
    if (digits_.size() != 10 || digits_[0] < '1' || digits_[3] < '2') throw std::domain_error("invalid");
}

std::string phone_number::number() const { return digits_; }

}  // namespace phone_number
