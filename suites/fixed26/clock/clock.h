#pragma once

namespace date_independent {

}  // namespace date_independent
