#include "spiral_matrix.h"

namespace spiral_matrix {

std::vector<std::vector<uint32_t>> spiral_matrix(uint32_t size) {
    std::vector<std::vector<uint32_t>> matrix(size, std::vector<uint32_t>(size));
    const int n = static_cast<int>(size);
    int row = 0;
    int col = 0;
    int row_step = 1;
    int col_step = 0;
    for (uint32_t value = 1; value <= size * size; ++value) {
        matrix[row][col] = value;
        const int next_row = row + row_step;
        const int next_col = col + col_step;
        // Cells still holding 0 are the ones not yet visited.
        if (next_row < 0 || next_row >= n || next_col < 0 || next_col >= n || matrix[next_row][next_col] != 0) {
            const int turned_row_step = -col_step;  // a quarter turn
            col_step = row_step;
            row_step = turned_row_step;
        }
        row += row_step;
        col += col_step;
    }
    return matrix;
}

}  // namespace spiral_matrix
