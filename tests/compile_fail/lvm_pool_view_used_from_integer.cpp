// compile-fail: a pool's used and total data blocks are blocks, not integers: a byte count (or any bare number)
// does not go where blocks are read; blocks_in converts it, naming the block size and the rounding.
// expect: no match for 'operator='|no viable overloaded '='
#include <provpol/extend/lvm_rate_aware.hpp>

using namespace provpol::literals;

provpol::lvm_pool_view view(provpol::bytes size, provpol::bytes allocated) {
    provpol::lvm_pool_view v{};
    v.size = size;
#ifdef PROVPOL_COMPILE_FAIL
    v.used = allocated.count();
#else
    v.used = provpol::blocks_in(allocated, 64_KiB, provpol::rounding::up);
#endif
    return v;
}
