#include "crypto_square.h"

namespace crypto_square {

}  // namespace crypto_square
