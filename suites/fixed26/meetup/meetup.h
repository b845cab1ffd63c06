#pragma once

namespace meetup {

// TODO: add your solution here

}  // namespace meetup
