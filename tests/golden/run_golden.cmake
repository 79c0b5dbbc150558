# run_golden.cmake -- run one golden case and diff its output with the expected file.
#   cmake -DPROG=frontcheck -DARGS="--ast;name.neuro" -DWORKDIR=dir -DEXPECTED=name.err
#         -DSTREAM=stderr|stdout [-DEXPECT_FAIL=1] [-DSTRIP=dir] -P run_golden.cmake
# NEUROC_UPDATE_GOLDEN=1 in the environment rewrites EXPECTED with the actual output
# (review the diff before committing).
execute_process(COMMAND ${PROG} ${ARGS}
  WORKING_DIRECTORY ${WORKDIR}
  OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
if(STREAM STREQUAL "stdout")
  set(actual "${out}")
else()
  set(actual "${err}")
endif()
# STRIP: a folder (the build tree's stdlib) whose absolute path becomes <stdlib> in the output
if(DEFINED STRIP)
  string(REPLACE "${STRIP}" "<stdlib>" actual "${actual}")
endif()
if(EXPECT_FAIL AND rc EQUAL 0)
  message(FATAL_ERROR "expected a failing exit status, got 0")
endif()
if(NOT EXPECT_FAIL AND NOT rc EQUAL 0)
  message(FATAL_ERROR "exit status ${rc}\n${err}")
endif()
if(DEFINED ENV{NEUROC_UPDATE_GOLDEN} AND "$ENV{NEUROC_UPDATE_GOLDEN}" STREQUAL "1")
  file(WRITE ${EXPECTED} "${actual}")
  message(STATUS "updated ${EXPECTED}")
  return()
endif()
if(NOT EXISTS ${EXPECTED})
  message(FATAL_ERROR "missing ${EXPECTED} (run with NEUROC_UPDATE_GOLDEN=1)\nactual:\n${actual}")
endif()
file(READ ${EXPECTED} expected)
if(NOT actual STREQUAL expected)
  message(FATAL_ERROR "output differs from ${EXPECTED}\n--- expected\n${expected}--- actual\n${actual}")
endif()
