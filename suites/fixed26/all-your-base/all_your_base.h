#ifndef ALL_YOUR_BASE_H
#define ALL_YOUR_BASE_H

namespace all_your_base {

}  // namespace all_your_base

#endif  // ALL_YOUR_BASE_H
