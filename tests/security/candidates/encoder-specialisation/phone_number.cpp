#include "shared/validates_only.cpp"
