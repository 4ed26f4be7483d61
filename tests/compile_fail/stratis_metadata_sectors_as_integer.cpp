// compile-fail: stratis_initial and stratis_metadata_size take thin_metadata_size's answer as blocks of 512-byte
// sectors, as stratis_pool_state's metadata_estimate holds it, not as a bare integer: stratis_initial(c, usable,
// estimate.count()) with the estimate in bytes (`thin_metadata_size -u b`) compiled and made the metadata 512 times
// too large (up to max_metadata()).
// expect: could not convert|no known conversion|no viable conversion|cannot convert
#include <provpol/extend/stratis.hpp>

provpol::stratis_initial_sizes initial(const provpol::stratis_config& c, provpol::bytes usable,
                                       provpol::bytes estimate) {
#ifdef PROVPOL_COMPILE_FAIL
    return provpol::stratis_initial(c, usable, estimate.count());
#else
    return provpol::stratis_initial(c, usable,
                                    provpol::blocks_in(estimate, provpol::bytes(512), provpol::rounding::up));
#endif
}
