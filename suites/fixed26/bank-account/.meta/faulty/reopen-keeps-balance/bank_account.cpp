#include "bank_account.h"

#include <stdexcept>

namespace Bankaccount {

void Bankaccount::require_open() const {
    if (!is_open_) {
        throw std::runtime_error("account not open");
    }
}

void Bankaccount::open() {
    std::lock_guard<std::mutex> lock(mutex_);
    if (is_open_) {
        throw std::runtime_error("account already open");
    }
    is_open_ = true;
}

void Bankaccount::close() {
    std::lock_guard<std::mutex> lock(mutex_);
    require_open();
    is_open_ = false;
}

void Bankaccount::deposit(int amount) {
    std::lock_guard<std::mutex> lock(mutex_);
    require_open();
    if (amount < 0) {
        throw std::runtime_error("amount must not be negative");
    }
    balance_ += amount;
}

void Bankaccount::withdraw(int amount) {
    std::lock_guard<std::mutex> lock(mutex_);
    require_open();
    if (amount < 0) {
        throw std::runtime_error("amount must not be negative");
    }
    if (amount > balance_) {
        throw std::runtime_error("amount exceeds the balance");
    }
    balance_ -= amount;
}

int Bankaccount::balance() const {
    std::lock_guard<std::mutex> lock(mutex_);
    require_open();
    return balance_;
}

}  // namespace Bankaccount
