// compile-fail: settings a preset passes to make() that make() refuses are no constant expression. The presets take
// their settings' value with detail::valid, not value() (which would compile bad_result_access and the error's message
// in every translation unit that includes them): an error aborts at run time and, here, fails the compile.
// expect: assert_fail
#include <provpol/extend/vdsm.hpp>

using namespace provpol::literals;

#ifdef PROVPOL_COMPILE_FAIL
constexpr provpol::vdsm_config config = provpol::detail::valid(provpol::vdsm_config::make(0_MiB, 20));
#else
constexpr provpol::vdsm_config config = provpol::detail::valid(provpol::vdsm_config::make(2560_MiB, 20));
#endif
static_assert(config.percent() == 20, "the settings given");
