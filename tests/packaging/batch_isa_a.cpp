// Built with -mavx2 (tests/packaging.cmake): decide_batch must have the same definition here as in batch_isa_b.cpp,
// built without it, so that the linker may keep either copy; this file's answers are compared with that one's.
#include <provpol/extend.hpp>

#include <cstddef>
#include <cstdint>

void provpol_batch_isa_a(const std::uint64_t* capacity, const std::uint64_t* physical, const std::uint64_t* allocation,
                         std::size_t n, std::uint64_t* threshold, std::uint64_t* next_size, std::uint8_t* flags) {
    provpol::decide_batch(provpol::vdsm_2022(), provpol::extend_batch_input{capacity, physical, allocation, n},
                          provpol::extend_batch_output{threshold, next_size, flags});
}
