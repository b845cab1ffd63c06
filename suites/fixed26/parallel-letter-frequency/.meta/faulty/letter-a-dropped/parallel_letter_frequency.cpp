#include "parallel_letter_frequency.h"

#include <array>
#include <cctype>
#include <execution>
#include <numeric>

namespace parallel_letter_frequency {

namespace {

using Counts = std::array<std::size_t, 26>;

Counts count_letters(std::string_view text) {
    Counts counts{};
    for (const unsigned char c : text) {
        if (std::isalpha(c)) ++counts[std::tolower(c) - 'a'];
    }
    return counts;
}

Counts add(Counts total, const Counts& more) {
    for (std::size_t i = 0; i < total.size(); ++i) total[i] += more[i];
    return total;
}

}  // namespace

std::unordered_map<char, std::size_t> frequency(const std::vector<std::string_view>& texts) {
    // Each text is counted on its own, possibly on another thread; the per-text counts are
    // then summed, which gives the same totals whatever the order.
    const Counts totals = std::transform_reduce(std::execution::par, texts.begin(), texts.end(), Counts{}, add,
                                                count_letters);
    std::unordered_map<char, std::size_t> result;
    for (std::size_t i = 1; i < totals.size(); ++i) {
        if (totals[i] != 0) result[static_cast<char>('a' + i)] = totals[i];
    }
    return result;
}

}  // namespace parallel_letter_frequency
