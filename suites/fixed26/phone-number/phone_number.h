#if !defined(PHONE_NUMBER_H)
#define PHONE_NUMBER_H

namespace phone_number {}  // namespace phone_number

#endif  // PHONE_NUMBER_H
