// compile-fail: stratis_trigger_blocks answers in data blocks (blocks), so its count does not become a size without
// the block size: bytes(stratis_trigger_blocks(...)) read a count of 1 MiB blocks as bytes.
// expect: no matching function for call to 'provpol::bytes::bytes
// expect: no matching conversion for functional-style cast
// expect: no matching constructor
#include <provpol/extend/stratis.hpp>

using namespace provpol::literals;

provpol::bytes trigger_used(const provpol::stratis_config& c) {
#ifdef PROVPOL_COMPILE_FAIL
    return provpol::bytes(provpol::stratis_trigger_blocks(c, 100_GiB));
#else
    return provpol::size_of(provpol::stratis_trigger_blocks(c, 100_GiB), c.data_block());
#endif
}
