// compile-fail: stratis_3_0_low_water reads the used, size and available counts in data blocks (blocks), so byte
// counts do not pass for them: stratis_3_0_low_water(c, 0, size.count(), available.count()) compiled and answered
// a mark 2^20 times too far; blocks_in converts, naming the block size and the rounding.
// expect: cannot convert '[^']*' to 'provpol::blocks'
// expect: could not convert
// expect: no known conversion from
// expect: no matching function for call to
#include <provpol/extend/stratis.hpp>

provpol::blocks mark(const provpol::stratis_config& c, provpol::bytes size, provpol::bytes available) {
#ifdef PROVPOL_COMPILE_FAIL
    return provpol::blocks(provpol::stratis_3_0_low_water(c, 0, size.count(), available.count()));
#else
    return provpol::stratis_3_0_low_water(c, provpol::blocks(0),
                                          provpol::blocks_in(size, c.data_block(), provpol::rounding::down),
                                          provpol::blocks_in(available, c.data_block(), provpol::rounding::down));
#endif
}
