// A consumer of provpol: compiles the umbrella header with -std=c++17 and uses it.
#include <provpol/provpol.hpp>

#include <cstdio>

int main() {
    const auto size = provpol::parse_size("2.5GiB");
    if (!size || size->count() != 2684354560ULL) {
        std::fprintf(stderr, "consumer: parse_size gave the wrong answer\n");
        return 1;
    }
    std::printf("provpol %s: 2.5GiB = %llu bytes\n", PROVPOL_VERSION_STRING,
                static_cast<unsigned long long>(size->count()));
    return 0;
}
