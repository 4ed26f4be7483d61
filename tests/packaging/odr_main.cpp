// Links odr_a.cpp and odr_b.cpp, which both include every provpol header, and checks that both work.
#include <provpol/models.hpp>

#include <cstdio>

provpol::bytes provpol_odr_a();
provpol::bytes provpol_odr_b();

int main() {
    if (provpol_odr_a().count() != 2684354560ULL || provpol_odr_b().count() != 128) {
        std::fprintf(stderr, "odr_test: unexpected results\n");
        return 1;
    }
    std::puts("two translation units with every public header link and agree");
    return 0;
}
