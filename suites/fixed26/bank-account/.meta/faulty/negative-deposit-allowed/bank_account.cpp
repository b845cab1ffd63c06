#include "bank_account.h"

#include <stdexcept>

namespace Bankaccount {

namespace {

void require_not_negative(int amount) {
    if (amount < 0) {
        throw std::runtime_error("amount must not be negative");
    }
}

}  // namespace

void Bankaccount::require_open() const {
    if (!balance_) {
        throw std::runtime_error("account not open");
    }
}

void Bankaccount::open() {
    std::lock_guard<std::mutex> lock(mutex_);
    if (balance_) {
        throw std::runtime_error("account already open");
    }
    balance_ = 0;
}

void Bankaccount::close() {
    std::lock_guard<std::mutex> lock(mutex_);
    require_open();
    balance_.reset();
}

void Bankaccount::deposit(int amount) {
    std::lock_guard<std::mutex> lock(mutex_);
    require_open();
    *balance_ += amount;
}

void Bankaccount::withdraw(int amount) {
    std::lock_guard<std::mutex> lock(mutex_);
    require_open();
    require_not_negative(amount);
    if (amount > *balance_) {
        throw std::runtime_error("amount exceeds the balance");
    }
    *balance_ -= amount;
}

int Bankaccount::balance() const {
    std::lock_guard<std::mutex> lock(mutex_);
    require_open();
    return *balance_;
}

}  // namespace Bankaccount
