#include "gigasecond.h"

namespace gigasecond {

boost::posix_time::ptime advance(const boost::posix_time::ptime& start) {
    return start + boost::posix_time::seconds(999'999'999);
}

}  // namespace gigasecond
