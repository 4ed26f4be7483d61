// compile-fail: a domain_drive_latency is always bound to its domain's queue (domain_drive_latency::of): an unbound
// one, which dereferenced a null queue at its first call, cannot be made; a slot filled later is a std::optional.
// expect: no matching function for call to 'provpol::domain_drive_latency::domain_drive_latency\(\)'
// expect: no matching constructor for initialization of 'provpol::domain_drive_latency'
// expect: is private within this context
// expect: calling a private constructor
#include <provpol/domain/drive.hpp>

#include <optional>

std::optional<provpol::domain_drive_latency> slot(provpol::domain_shared& shared) {
#ifdef PROVPOL_COMPILE_FAIL
    provpol::domain_drive_latency l;
    (void)shared;
    return l;
#else
    return provpol::domain_drive_latency::of(shared, 0);
#endif
}
