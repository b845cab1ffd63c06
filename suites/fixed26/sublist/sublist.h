#pragma once

namespace sublist {}  // namespace sublist
