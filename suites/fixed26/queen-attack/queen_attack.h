#if !defined(QUEEN_ATTACK_H)
#define QUEEN_ATTACK_H

namespace queen_attack {}  // namespace queen_attack

#endif  // QUEEN_ATTACK_H
