#pragma once

namespace linked_list {

}  // namespace linked_list
