#pragma once

namespace dnd_character {

int modifier(int score);

// The sum of the three highest of four six-sided dice.
int ability();

// Members are initialised in declaration order, so constitution is rolled before the
// hitpoints are derived from it.
struct Character {
    int strength{ability()};
    int dexterity{ability()};
    int constitution{ability()};
    int intelligence{ability()};
    int wisdom{ability()};
    int charisma{ability()};
    int hitpoints{10 + modifier(constitution)};
};

}  // namespace dnd_character
