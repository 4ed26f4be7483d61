// compile-fail: drive_state takes its sizes in one order of roles; a physical size where the capacity goes does not
// convert, even spelled with its role.
// expect: no matching function for call to 'provpol::drive_state::drive_state
// expect: could not convert
// expect: no matching constructor for initialization of '(const )?provpol::drive_state'
#include <provpol/extend.hpp>

using namespace provpol::literals;

provpol::extend_action decide() {
#ifdef PROVPOL_COMPILE_FAIL
    const provpol::drive_state s{provpol::drive_physical(5_GiB), provpol::drive_capacity(10_GiB),
                                 provpol::drive_allocation(4_GiB)};
#else
    const provpol::drive_state s{provpol::drive_capacity(10_GiB), provpol::drive_physical(5_GiB),
                                 provpol::drive_allocation(4_GiB)};
#endif
    return provpol::vdsm_2022().decide(s).action;
}
