# SPDX-License-Identifier: MIT
# cmake -DPROGRAM=... [-DINPUT=file] -DEXPECTED=file -P check_output.cmake
# Runs PROGRAM (standard input from INPUT, else empty) and fails unless it exits 0 and its
# standard output equals the file EXPECTED byte for byte.
if(INPUT)
  set(_in INPUT_FILE ${INPUT})
else()
  set(_in INPUT_FILE /dev/null)
endif()
execute_process(COMMAND ${PROGRAM} ${_in}
  OUTPUT_VARIABLE _out ERROR_VARIABLE _err RESULT_VARIABLE _rc)
file(READ ${EXPECTED} _want)
if(NOT _rc EQUAL 0)
  message(FATAL_ERROR "${PROGRAM} exited with ${_rc}\nstderr:\n${_err}\nstdout:\n${_out}")
endif()
if(NOT _out STREQUAL _want)
  message(FATAL_ERROR "${PROGRAM}: output differs from ${EXPECTED}\n"
                      "--- got:\n${_out}--- expected:\n${_want}")
endif()
