// The second translation unit of the ODR test (see odr_a.cpp).
#include <provpol/models.hpp>

provpol::bytes provpol_odr_b() { return provpol::align_up(provpol::bytes(1), provpol::bytes(128)); }
