#if !defined(ROBOT_NAME_H)
#define ROBOT_NAME_H

#include <string>

namespace robot_name {

class robot {
   public:
    robot();

    const std::string& name() const;
    // Gives the robot a name it has never carried and no robot has been given before.
    void reset();

   private:
    std::string name_;
};

}  // namespace robot_name

#endif  // ROBOT_NAME_H
