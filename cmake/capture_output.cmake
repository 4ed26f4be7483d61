# cmake -P script: runs PROGRAM ARGUMENT and writes its standard output to OUTPUT, failing the build when the
# command fails. Used to generate provpol(1) and the bash completion from the built provpol.
foreach(var PROGRAM ARGUMENT OUTPUT)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "capture_output.cmake: ${var} is not set")
  endif()
endforeach()
execute_process(COMMAND "${PROGRAM}" "${ARGUMENT}" OUTPUT_FILE "${OUTPUT}.tmp" RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  file(REMOVE "${OUTPUT}.tmp")
  message(FATAL_ERROR "${PROGRAM} ${ARGUMENT} failed (${rc}): ${err}")
endif()
file(RENAME "${OUTPUT}.tmp" "${OUTPUT}")
