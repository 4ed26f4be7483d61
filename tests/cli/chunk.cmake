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

# The README's "I/O chunk size" example: compiled, run, and its output compared with the "prints" block after it,
# so that the README and the library cannot drift apart.
set(provpol_readme "${PROJECT_SOURCE_DIR}/README.md")
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${provpol_readme}")
file(READ "${provpol_readme}" provpol_readme_text)
string(FIND "${provpol_readme_text}" "## I/O chunk size" provpol_chunk_at)
if(provpol_chunk_at EQUAL -1)
  message(FATAL_ERROR "README.md has no '## I/O chunk size' section")
endif()
string(SUBSTRING "${provpol_readme_text}" ${provpol_chunk_at} -1 provpol_chunk_section)
string(REGEX MATCH "```c\\+\\+\n([^`]*)```\n\nprints\n\n```\n([^`]*)```" provpol_chunk_match "${provpol_chunk_section}")
if(NOT CMAKE_MATCH_1 OR NOT CMAKE_MATCH_2)
  message(FATAL_ERROR "README.md's I/O chunk size section lacks its ```c++ example followed by 'prints' and the output")
endif()
file(CONFIGURE OUTPUT "${CMAKE_CURRENT_BINARY_DIR}/readme_chunk_example.cpp"
     CONTENT "// generated from README.md's I/O chunk size example; edit it there\n${CMAKE_MATCH_1}" @ONLY)
file(CONFIGURE OUTPUT "${CMAKE_CURRENT_BINARY_DIR}/readme_chunk_expected.txt" CONTENT "${CMAKE_MATCH_2}" @ONLY)
add_executable(readme_chunk_example "${CMAKE_CURRENT_BINARY_DIR}/readme_chunk_example.cpp")
provpol_dev_target(readme_chunk_example)
add_test(NAME examples.readme_chunk
         COMMAND ${CMAKE_COMMAND} -DEXE=$<TARGET_FILE:readme_chunk_example>
                 -DEXPECTED=${CMAKE_CURRENT_BINARY_DIR}/readme_chunk_expected.txt
                 -P ${CMAKE_CURRENT_LIST_DIR}/chunk_readme_check.cmake)
set_tests_properties(examples.readme_chunk PROPERTIES LABELS "examples;chunk")
