#pragma once

namespace diamond {

}  // namespace diamond
