# CLI tests of `provpol chunk` and `provpol calibrate` (bash scripts that run the built CLI and check its output,
# exit status and stderr). Included from tests/CMakeLists.txt; the CLI target is defined in examples/.
if(NOT PROVPOL_BUILD_EXAMPLES)
  return()
endif()

add_test(NAME cli.chunk COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/chunk_test.sh $<TARGET_FILE:provpol_cli>)
set_tests_properties(cli.chunk PROPERTIES LABELS "cli;chunk" SKIP_RETURN_CODE 77 TIMEOUT 120)

# One test per safety property of the calibrator; 77 means skipped (e.g. no block device here).
foreach(case IN ITEMS tmp_16MiB formats_and_samples bad_input refuses_block_device refuses_symlink_to_block_device
                      refuses_char_device refuses_regular_file refuses_unwritable_dir refuses_read_only_filesystem
                      refuses_when_space_is_short cleans_up_on_error cleans_up_on_sigint cleans_up_on_sigterm
                      never_opens_an_existing_file progress_only_on_a_terminal)
  add_test(NAME cli.calibrate.${case}
           COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/calibrate_test.sh $<TARGET_FILE:provpol_cli> ${case})
  set_tests_properties(cli.calibrate.${case} PROPERTIES LABELS "cli;chunk" SKIP_RETURN_CODE 77 TIMEOUT 300)
endforeach()

# The "I/O chunk size" example of docs/chunk.md is compiled, run and compared with the output the page shows by
# examples/CMakeLists.txt (ctest examples.docs.chunk.1), like every C++ block of README.md and docs/.
