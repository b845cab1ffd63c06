#if !defined(SPIRAL_MATRIX_H)
#define SPIRAL_MATRIX_H

namespace spiral_matrix {}  // namespace spiral_matrix

#endif  // SPIRAL_MATRIX_H
