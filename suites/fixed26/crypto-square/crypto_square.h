#ifndef CRYPTO_SQUARE_H
#define CRYPTO_SQUARE_H

namespace crypto_square {

}  // namespace crypto_square

#endif  // CRYPTO_SQUARE_H
