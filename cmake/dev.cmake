# Settings for provpol's own targets (tests, examples, benchmarks); never applied to provpol::provpol or
# provpol::models.
set(PROVPOL_WARNINGS "" CACHE STRING "Warning flags for provpol's own targets (;-separated), set by the presets")
option(PROVPOL_SANITIZED "The build runs under sanitizers (set by the asan-ubsan preset)" OFF)

# provpol_dev_target(<target>): provpol's warning flags on one of its own targets, which links provpol::models (the
# tests, the CLI and the agent use both layers).
# -ffp-contract=off: no fused multiply-add unless the source asks for one. GCC contracts across statements by
# default (-ffp-contract=fast) and clang within them (=on) wherever the target has FMA (aarch64, x86-64-v3),
# which changes the last bits of the simulators' time arithmetic (a += r * (next - t)) and so their printed
# numbers from one machine to another. tools/determinism.sh checks that an x86-64-v3 build prints the same bytes
# (CI runs it). A consumer that wants provpol's numbers bit for bit compiles with the same flag (README).
function(provpol_dev_target target)
  target_compile_options(${target} PRIVATE ${PROVPOL_WARNINGS}
                         $<$<CXX_COMPILER_ID:GNU,Clang,AppleClang>:-ffp-contract=off>)
  target_link_libraries(${target} PRIVATE provpol::models)
endfunction()
