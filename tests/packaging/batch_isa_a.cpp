// Built with -mavx2 (tests/packaging.cmake): decide_batch must have the same definition here as in batch_isa_b.cpp,
// built without it, so that the linker may keep either copy; this file's answers are compared with that one's.
#include <provpol/extend.hpp>

bool provpol_batch_isa_a(const provpol::extend_batch_input& in, const provpol::extend_batch_output& out) {
    return provpol::decide_batch(provpol::vdsm_2022(), in, out).has_value();
}
