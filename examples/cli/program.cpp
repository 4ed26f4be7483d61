// The provpol program: provpol_main (cli/main.cpp). The CLI fuzzer (tests/fuzz/cli_fuzz.cpp) links the CLI's code
// without this file and calls provpol_main in-process.
#include "commands.hpp"

int main(int argc, char** argv) { return provpol::cli::provpol_main(argc, argv); }
