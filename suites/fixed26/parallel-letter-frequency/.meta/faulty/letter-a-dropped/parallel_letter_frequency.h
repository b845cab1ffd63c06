#if !defined(PARALLEL_LETTER_FREQUENCY_H)
#define PARALLEL_LETTER_FREQUENCY_H

#include <cstddef>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace parallel_letter_frequency {

// Letters are counted case-insensitively under their lowercase form; anything that is not
// a letter is skipped.
[[nodiscard]] std::unordered_map<char, std::size_t> frequency(const std::vector<std::string_view>& texts);

}  // namespace parallel_letter_frequency

#endif
