// compile-fail: lvm_trigger_blocks takes the pool's blocks as blocks and the threshold as a percent, so the two
// cannot trade places (lvm_trigger_blocks(70, total) compiled and answered for a pool of 70 blocks), nor a byte
// count stand in for the blocks.
// expect: cannot convert '[^']*' to 'provpol::blocks'
// expect: could not convert
// expect: no known conversion from
// expect: no matching function for call to
#include <provpol/extend/lvm.hpp>

std::uint64_t first_extending(std::uint64_t total) {
#ifdef PROVPOL_COMPILE_FAIL
    return provpol::lvm_trigger_blocks(70, static_cast<std::uint32_t>(total));
#else
    return provpol::lvm_trigger_blocks(provpol::blocks(total), 70).count();
#endif
}
