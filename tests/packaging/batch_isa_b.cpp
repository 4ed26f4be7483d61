// Built without -mavx2: see batch_isa_a.cpp. main() decides the same drives through both translation units and
// through decide() one by one, and requires the same answers everywhere.
#include <provpol/extend.hpp>
#include <provpol/random.hpp>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <vector>

void provpol_batch_isa_a(const std::uint64_t* capacity, const std::uint64_t* physical, const std::uint64_t* allocation,
                         std::size_t n, std::uint64_t* threshold, std::uint64_t* next_size, std::uint8_t* flags);

namespace {
void batch_b(const std::uint64_t* capacity, const std::uint64_t* physical, const std::uint64_t* allocation,
             std::size_t n, std::uint64_t* threshold, std::uint64_t* next_size, std::uint8_t* flags) {
    provpol::decide_batch(provpol::vdsm_2022(), provpol::extend_batch_input{capacity, physical, allocation, n},
                          provpol::extend_batch_output{threshold, next_size, flags});
}
}  // namespace

int main() {
    const std::size_t n = 32 * 64 + 7;  // whole blocks and a tail
    std::vector<std::uint64_t> c(n), p(n), a(n);
    provpol::random_stream rng(2026);  // any sizes: most below 2^47 (the vectorised blocks), some above
    auto next = [&rng]() { return rng.next(); };
    for (std::size_t i = 0; i < n; ++i) {
        const unsigned bits = i % 97 == 0 ? 63 : 44;
        c[i] = next() >> (64 - bits);
        p[i] = next() >> (64 - bits);
        a[i] = p[i] - (next() >> (64 - bits)) % (p[i] + 1);
    }
    std::vector<std::uint64_t> ta(n), tb(n), na(n), nb(n);
    std::vector<std::uint8_t> fa(n), fb(n);
    provpol_batch_isa_a(c.data(), p.data(), a.data(), n, ta.data(), na.data(), fa.data());
    batch_b(c.data(), p.data(), a.data(), n, tb.data(), nb.data(), fb.data());
    std::size_t wrong = 0;
    for (std::size_t i = 0; i < n; ++i) {
        const provpol::extend_decision d = provpol::vdsm_2022().decide(
            provpol::drive_state{provpol::bytes(c[i]), provpol::bytes(p[i]), provpol::bytes(a[i])});
        const unsigned f = (d.needs_extend ? 1u : 0u) | (d.improbable_allocation ? 2u : 0u) | (d.can_extend ? 4u : 0u);
        if (ta[i] != tb[i] || na[i] != nb[i] || fa[i] != fb[i] || ta[i] != d.block_threshold.count() ||
            na[i] != d.next_size.count() || fa[i] != f)
            ++wrong;
    }
    std::printf("%zu drives decided by a -mavx2 translation unit and a baseline one: %zu differ\n", n, wrong);
    return wrong == 0 ? 0 : 1;
}
