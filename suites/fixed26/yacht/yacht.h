#pragma once

namespace yacht {}  // namespace yacht
