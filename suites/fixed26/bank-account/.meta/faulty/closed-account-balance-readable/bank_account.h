#ifndef BANK_ACCOUNT_H
#define BANK_ACCOUNT_H

#include <mutex>
#include <optional>

namespace Bankaccount {

// Every member holds the lock for its whole check-then-update, so parallel callers never
// act on a balance that another thread is changing.
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
    std::optional<int> balance_;  // empty while the account is not open
};

}  // namespace Bankaccount

#endif  // BANK_ACCOUNT_H
