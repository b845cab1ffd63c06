#include "kindergarten_garden.h"

namespace kindergarten_garden {}  // namespace kindergarten_garden
