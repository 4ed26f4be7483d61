// compile-fail: parse_preset keeps a pointer to the list of choices it quotes, so a temporary list is refused.
// expect: use of deleted function|call to deleted function
#include <provpol/extend/presets.hpp>

provpol::result<provpol::extend_preset> read(provpol::text_view name) {
#ifdef PROVPOL_COMPILE_FAIL
    return provpol::parse_preset(provpol::extend_presets, provpol::preset_names(provpol::extend_presets, "one of "),
                                 name);
#else
    return provpol::parse_preset(provpol::extend_presets, provpol::extend_preset_choices, name);
#endif
}
