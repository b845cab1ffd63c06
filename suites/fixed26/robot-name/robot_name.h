#if !defined(ROBOT_NAME_H)
#define ROBOT_NAME_H

namespace robot_name {}  // namespace robot_name

#endif  // ROBOT_NAME_H
