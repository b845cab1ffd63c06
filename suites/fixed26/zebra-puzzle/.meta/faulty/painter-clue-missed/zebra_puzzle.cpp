#include "zebra_puzzle.h"

#include <algorithm>
#include <array>
#include <cstdlib>
#include <stdexcept>

namespace zebra_puzzle {

namespace {

// For one attribute, the house (0 = first, leftmost) of each of its five values. Trying
// every permutation of this array tries every way to spread the values over the houses.
using Houses = std::array<int, 5>;

enum Colour { red, green, ivory, yellow, blue };
enum Nationality { englishman, spaniard, ukrainian, norwegian, japanese };
enum Drink { coffee, tea, milk, orange_juice, water };
enum Hobby { dancing, painting, reading, football, chess };
enum Pet { dog, snails, fox, horse, zebra };

const std::array<std::string, 5> nationality_names{"Englishman", "Spaniard", "Ukrainian", "Norwegian", "Japanese"};

constexpr Houses first_arrangement{0, 1, 2, 3, 4};
constexpr int middle_house = 2;

bool next_to(int house, int other) { return std::abs(house - other) == 1; }

bool next_arrangement(Houses& houses) { return std::next_permutation(houses.begin(), houses.end()); }

std::string resident_of(const Houses& nationality, int house) {
    const auto found = std::find(nationality.begin(), nationality.end(), house);
    return nationality_names[static_cast<std::size_t>(found - nationality.begin())];
}

}  // namespace

Solution solve() {
    // The search runs to the end rather than stopping at the first fit: an answer only
    // counts if the clues leave exactly one arrangement. Each attribute is checked
    // against every clue that involves only it and attributes already placed, so most
    // arrangements are dropped before the next loop starts.
    Solution found;
    int arrangements = 0;
    Houses colour = first_arrangement;
    do {
        if (colour[green] != colour[ivory] + 1) continue;
        Houses nationality = first_arrangement;
        do {
            if (nationality[englishman] != colour[red] || nationality[norwegian] != 0 ||
                !next_to(nationality[norwegian], colour[blue])) {
                continue;
            }
            Houses drink = first_arrangement;
            do {
                if (drink[coffee] != colour[green] || drink[tea] != nationality[ukrainian] ||
                    drink[milk] != middle_house) {
                    continue;
                }
                Houses hobby = first_arrangement;
                do {
                    if (hobby[painting] != colour[yellow] || hobby[football] != drink[orange_juice] ||
                        hobby[chess] != nationality[japanese]) {
                        continue;
                    }
                    Houses pet = first_arrangement;
                    do {
                        if (pet[dog] != nationality[spaniard] || pet[snails] != hobby[dancing] ||
                            !next_to(hobby[reading], pet[fox])) {
                            continue;
                        }
                        found = {resident_of(nationality, drink[water]), resident_of(nationality, pet[zebra])};
                        ++arrangements;
                    } while (next_arrangement(pet));
                } while (next_arrangement(hobby));
            } while (next_arrangement(drink));
        } while (next_arrangement(nationality));
    } while (next_arrangement(colour));
    if (arrangements != 1) throw std::logic_error("the clues do not pin down a single arrangement");
    return found;
}

}  // namespace zebra_puzzle
