# Runs a C++ block of the documentation (EXE) and compares what it prints with the ```text block the page shows
# after it (EXPECTED). WHERE names the page and block. Used by examples/CMakeLists.txt.
execute_process(COMMAND "${EXE}" OUTPUT_VARIABLE out RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${WHERE}: the example exited with ${rc}")
endif()
file(READ "${EXPECTED}" expected)
if(NOT out STREQUAL expected)
  message(FATAL_ERROR "${WHERE}: the example prints\n${out}\nbut the page shows\n${expected}")
endif()
