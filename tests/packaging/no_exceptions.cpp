// Built with -fno-exceptions: the library's non-throwing API must compile and work without exceptions.
#include <provpol/models.hpp>

#include <cstdio>

#if PROVPOL_HAS_EXCEPTIONS
#error "no_exceptions.cpp must be compiled with -fno-exceptions"
#endif

namespace {
int failures = 0;
void check(bool ok, const char* what) {
    if (!ok) {
        std::fprintf(stderr, "no_exceptions_test: failed: %s\n", what);
        ++failures;
    }
}
}  // namespace

int main() {
    using namespace provpol::literals;
    const auto good = provpol::parse_size("2.5GiB");
    check(good.has_value() && *good == 2560_MiB, "parse_size(2.5GiB)");
    const auto bad = provpol::parse_size("4k");
    check(!bad.has_value() && bad.error().code() == provpol::errc::invalid_syntax, "parse_size(4k) is an error");
    check(bad.error().message().size() > 0, "error message without exceptions");
    check(!provpol::checked_add(provpol::bytes::max(), 1_B), "checked_add overflow");
    if (failures != 0) return 1;
    std::puts("provpol works with -fno-exceptions");
    return 0;
}
