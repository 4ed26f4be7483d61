// One of two translation units that include every public header (models.hpp): any non-inline definition in a
// header would make the link of odr_test fail with a duplicate symbol.
#include <provpol/models.hpp>

provpol::bytes provpol_odr_a() { return provpol::parse_size("2.5GiB").value(); }
