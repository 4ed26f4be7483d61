// compile-fail: lvm_low_water_blocks takes and answers the pool's blocks as blocks, as lvm_trigger_blocks does, so
// lvm_low_water_blocks(70, total), the two traded, no longer compiles (it answered a mark for a pool of 70 blocks).
// expect: could not convert|no known conversion|no viable conversion|cannot convert|no matching function
#include <provpol/simulate/lvm_dmeventd.hpp>

#include <cstdint>

std::uint64_t low_water(std::uint64_t total) {
#ifdef PROVPOL_COMPILE_FAIL
    return provpol::detail::lvm_low_water_blocks(70, static_cast<std::uint32_t>(total));
#else
    return provpol::detail::lvm_low_water_blocks(provpol::blocks(total), 70).count();
#endif
}
