// compile-fail: the low-water marks stratisd sets (stratis_check_decision's and stratis_initial_sizes'
// low_water_blocks, stratis_config::lowater_blocks()) are data blocks, so they do not pass as a bare integer that
// could be read as bytes or sectors; count() says it is a count.
// expect: cannot convert 'const provpol::blocks' to '(std::)?uint64_t'
// expect: could not convert
// expect: no viable conversion from
#include <provpol/extend/stratis.hpp>

#include <cstdint>

std::uint64_t mark(const provpol::stratis_check_decision& d) {
#ifdef PROVPOL_COMPILE_FAIL
    return d.low_water_blocks;
#else
    return d.low_water_blocks.count();
#endif
}
