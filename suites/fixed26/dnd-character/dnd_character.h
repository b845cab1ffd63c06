#pragma once

namespace dnd_character {}  // namespace dnd_character
