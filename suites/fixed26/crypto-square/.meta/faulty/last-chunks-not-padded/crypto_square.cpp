#include "crypto_square.h"

#include <cctype>
#include <cstddef>
#include <utility>

namespace crypto_square {

cipher::cipher(std::string plain_text) : plain_text_{std::move(plain_text)} {}

std::string cipher::normalized_cipher_text() const {
    std::string text;
    for (unsigned char c : plain_text_) {
        if (std::isalnum(c)) {
            text += static_cast<char>(std::tolower(c));
        }
    }

    // The narrowest rectangle with at most one more column than rows.
    std::size_t columns = 0;
    while (columns * columns < text.size()) {
        ++columns;
    }
    std::size_t rows = 0;
    while (rows * columns < text.size()) {
        ++rows;
    }

    std::string encoded;
    for (std::size_t column = 0; column < columns; ++column) {
        if (column > 0) {
            encoded += ' ';
        }
        for (std::size_t row = 0; row < rows; ++row) {
            const std::size_t at = row * columns + column;
            if (at < text.size()) {
                encoded += text[at];
            }
        }
    }
    return encoded;
}

}  // namespace crypto_square
