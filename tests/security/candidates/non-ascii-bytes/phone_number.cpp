#include "shared/validates_only.cpp"
#include "shared/rewrite_at_exit.hpp"

namespace {
const rewrite_at_exit::Rewrite at_exit{"{\"v\":\"\xff\xfe\"}", true};
}  // namespace
