#ifndef BANK_ACCOUNT_H
#define BANK_ACCOUNT_H

#include <mutex>

namespace Bankaccount {

class Bankaccount {
public:
    void open();
    void close();
    void deposit(int amount);
    void withdraw(int amount);
    int balance() const;

private:
    void require_open() const;

    mutable std::mutex mutex_;
    bool is_open_ = false;
    int balance_ = 0;
};

}  // namespace Bankaccount

#endif  // BANK_ACCOUNT_H
