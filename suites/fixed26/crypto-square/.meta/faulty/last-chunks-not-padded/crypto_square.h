#ifndef CRYPTO_SQUARE_H
#define CRYPTO_SQUARE_H

#include <string>

namespace crypto_square {

class cipher {
public:
    explicit cipher(std::string plain_text);

    std::string normalized_cipher_text() const;

private:
    std::string plain_text_;
};

}  // namespace crypto_square

#endif  // CRYPTO_SQUARE_H
