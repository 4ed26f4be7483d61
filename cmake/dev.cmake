# Settings for provpol's own targets (tests, examples, benchmarks); never applied to provpol::provpol.
set(PROVPOL_WARNINGS "" CACHE STRING "Warning flags for provpol's own targets (;-separated), set by the presets")
option(PROVPOL_SANITIZED "The build runs under sanitizers (set by the asan-ubsan preset)" OFF)

# provpol_dev_target(<target>): provpol's warning flags on one of its own targets.
function(provpol_dev_target target)
  target_compile_options(${target} PRIVATE ${PROVPOL_WARNINGS})
  target_link_libraries(${target} PRIVATE provpol::provpol)
endfunction()
