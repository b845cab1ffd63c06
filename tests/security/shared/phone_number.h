#if !defined(PHONE_NUMBER_H)
#define PHONE_NUMBER_H

#include <string>

namespace phone_number {

class phone_number {
   public:
    // Throws std::domain_error when the text is not a valid NANP number.
    explicit phone_number(const std::string& text);

    std::string number() const;

   private:
    std::string digits_;
};

}  // namespace phone_number

#endif  // PHONE_NUMBER_H
