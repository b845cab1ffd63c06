#pragma once

namespace kindergarten_garden {}  // namespace kindergarten_garden
