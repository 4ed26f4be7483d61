// compile-fail: drive_state's three sizes are all bytes, so they are given by role (drive_capacity, drive_physical,
// drive_allocation) and bare sizes in the wrong order (here physical where the capacity goes) are refused; VDSM
// treats no combination of the three as impossible, so no check could catch the swap at run time.
// expect: no matching function for call to 'provpol::drive_state::drive_state
// expect: could not convert
// expect: no matching constructor for initialization of '(const )?provpol::drive_state'
#include <provpol/extend.hpp>

using namespace provpol::literals;

provpol::extend_action decide(provpol::bytes capacity, provpol::bytes physical, provpol::bytes allocation) {
#ifdef PROVPOL_COMPILE_FAIL
    const provpol::drive_state s{physical, capacity, allocation};
#else
    const provpol::drive_state s{provpol::drive_capacity(capacity), provpol::drive_physical(physical),
                                 provpol::drive_allocation(allocation)};
#endif
    return provpol::vdsm_2022().decide(s).action;
}
