#ifndef COMPLEX_NUMBERS_H
#define COMPLEX_NUMBERS_H

namespace complex_numbers {

}  // namespace complex_numbers

#endif  // COMPLEX_NUMBERS_H
