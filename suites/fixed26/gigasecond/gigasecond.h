#if !defined(GIGASECOND_H)
#define GIGASECOND_H

namespace gigasecond {}  // namespace gigasecond

#endif  // GIGASECOND_H
