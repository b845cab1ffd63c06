#include "dnd_character.h"

#include <catch2/catch.hpp>

#include <string>

// Matches a value inside the closed interval [low, high].
class InClosedRange : public Catch::MatcherBase<int> {
public:
    InClosedRange(int low, int high) : low_{low}, high_{high} {}

    bool match(const int& value) const override { return low_ <= value && value <= high_; }

    std::string describe() const override {
        return "lies in [" + std::to_string(low_) + ", " + std::to_string(high_) + "]";
    }

private:
    int low_;
    int high_;
};

TEST_CASE("ability modifier for score 3 is -4", "[1e9ae1dc-35bd-43ba-aa08-e4b94c20fa37]") {
    REQUIRE(dnd_character::modifier(3) == -4);
}

#if defined(EXERCISM_RUN_ALL_TESTS)

TEST_CASE("ability modifier for score 4 is -3", "[cc9bb24e-56b8-4e9e-989d-a0d1a29ebb9c]") {
    REQUIRE(dnd_character::modifier(4) == -3);
}

TEST_CASE("ability modifier for score 5 is -3", "[5b519fcd-6946-41ee-91fe-34b4f9808326]") {
    REQUIRE(dnd_character::modifier(5) == -3);
}

TEST_CASE("ability modifier for score 6 is -2", "[dc2913bd-6d7a-402e-b1e2-6d568b1cbe21]") {
    REQUIRE(dnd_character::modifier(6) == -2);
}

TEST_CASE("ability modifier for score 7 is -2", "[099440f5-0d66-4b1a-8a10-8f3a03cc499f]") {
    REQUIRE(dnd_character::modifier(7) == -2);
}

TEST_CASE("ability modifier for score 8 is -1", "[cfda6e5c-3489-42f0-b22b-4acb47084df0]") {
    REQUIRE(dnd_character::modifier(8) == -1);
}

TEST_CASE("ability modifier for score 9 is -1", "[c70f0507-fa7e-4228-8463-858bfbba1754]") {
    REQUIRE(dnd_character::modifier(9) == -1);
}

TEST_CASE("ability modifier for score 10 is 0", "[6f4e6c88-1cd9-46a0-92b8-db4a99b372f7]") {
    REQUIRE(dnd_character::modifier(10) == 0);
}

TEST_CASE("ability modifier for score 11 is 0", "[e00d9e5c-63c8-413f-879d-cd9be9697097]") {
    REQUIRE(dnd_character::modifier(11) == 0);
}

TEST_CASE("ability modifier for score 12 is +1", "[eea06f3c-8de0-45e7-9d9d-b8cab4179715]") {
    REQUIRE(dnd_character::modifier(12) == 1);
}

TEST_CASE("ability modifier for score 13 is +1", "[9c51f6be-db72-4af7-92ac-b293a02c0dcd]") {
    REQUIRE(dnd_character::modifier(13) == 1);
}

TEST_CASE("ability modifier for score 14 is +2", "[94053a5d-53b6-4efc-b669-a8b5098f7762]") {
    REQUIRE(dnd_character::modifier(14) == 2);
}

TEST_CASE("ability modifier for score 15 is +2", "[8c33e7ca-3f9f-4820-8ab3-65f2c9e2f0e2]") {
    REQUIRE(dnd_character::modifier(15) == 2);
}

TEST_CASE("ability modifier for score 16 is +3", "[c3ec871e-1791-44d0-b3cc-77e5fb4cd33d]") {
    REQUIRE(dnd_character::modifier(16) == 3);
}

TEST_CASE("ability modifier for score 17 is +3", "[3d053cee-2888-4616-b9fd-602a3b1efff4]") {
    REQUIRE(dnd_character::modifier(17) == 3);
}

TEST_CASE("ability modifier for score 18 is +4", "[bafd997a-e852-4e56-9f65-14b60261faee]") {
    REQUIRE(dnd_character::modifier(18) == 4);
}

// The scores are random: one draw would let a wrong range slip through by luck, so each
// random check is repeated many times.
TEST_CASE("random ability is within range", "[4f28f19c-2e47-4453-a46a-c0d365259c14]") {
    for (int i = 0; i < 1000; ++i) {
        REQUIRE_THAT(dnd_character::ability(), InClosedRange(3, 18));
    }
}

TEST_CASE("random character is valid", "[385d7e72-864f-4e88-8279-81a7d75b04ad]") {
    for (int i = 0; i < 1000; ++i) {
        const dnd_character::Character character;
        REQUIRE_THAT(character.strength, InClosedRange(3, 18));
        REQUIRE_THAT(character.dexterity, InClosedRange(3, 18));
        REQUIRE_THAT(character.constitution, InClosedRange(3, 18));
        REQUIRE_THAT(character.intelligence, InClosedRange(3, 18));
        REQUIRE_THAT(character.wisdom, InClosedRange(3, 18));
        REQUIRE_THAT(character.charisma, InClosedRange(3, 18));
        REQUIRE(character.hitpoints == 10 + dnd_character::modifier(character.constitution));
    }
}
#endif
