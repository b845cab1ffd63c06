#if !defined(SPIRAL_MATRIX_H)
#define SPIRAL_MATRIX_H

#include <cstdint>
#include <vector>

namespace spiral_matrix {

// Rows of a size x size matrix holding 1 .. size*size along an inward clockwise spiral.
[[nodiscard]] std::vector<std::vector<uint32_t>> spiral_matrix(uint32_t size);

}  // namespace spiral_matrix

#endif  // SPIRAL_MATRIX_H
