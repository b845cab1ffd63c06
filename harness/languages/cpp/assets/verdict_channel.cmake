# Included after the task's project() (CMAKE_PROJECT_INCLUDE, harness/testrun.py): every
# executable the task's CMake defines links the harness's verdict channel
# (verdict_channel.cpp), whichever main it links. An object on the link line is linked
# whole, so its listener and sentinels are in the binary whatever the solution defines.
link_libraries("${CMAKE_CURRENT_LIST_DIR}/lib/verdict_channel.o")
