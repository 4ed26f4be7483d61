# Runs the README's I/O chunk size example (EXE) and compares its output with the README's (EXPECTED).
execute_process(COMMAND "${EXE}" OUTPUT_VARIABLE out RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the README example exited with ${rc}")
endif()
file(READ "${EXPECTED}" expected)
if(NOT out STREQUAL expected)
  message(FATAL_ERROR "the README example prints\n${out}\nbut README.md shows\n${expected}")
endif()
