#include "binary_search_tree.h"

namespace binary_search_tree {

}  // namespace binary_search_tree
