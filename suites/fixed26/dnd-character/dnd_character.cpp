#include "dnd_character.h"

namespace dnd_character {}  // namespace dnd_character
