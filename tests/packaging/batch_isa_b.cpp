// Built without -mavx2: see batch_isa_a.cpp. main() decides the same drives through both translation units and
// through decide() one by one, and requires the same answers everywhere.
#include <provpol/extend.hpp>
#include <provpol/random.hpp>

#include <cstdint>
#include <cstdio>
#include <vector>

bool provpol_batch_isa_a(const provpol::extend_batch_input& in, const provpol::extend_batch_output& out);

namespace {
bool batch_b(const provpol::extend_batch_input& in, const provpol::extend_batch_output& out) {
    return provpol::decide_batch(provpol::vdsm_2022(), in, out).has_value();
}
}  // namespace

int main() {
    using provpol::bytes;
    const std::size_t n = 32 * 64 + 7;  // whole blocks and a tail
    std::vector<bytes> c(n), p(n), a(n);
    provpol::random_stream rng(2026);  // any sizes: most below 2^47 (the vectorised blocks), some above
    auto next = [&rng]() { return rng.next(); };
    for (std::size_t i = 0; i < n; ++i) {
        const unsigned bits = i % 97 == 0 ? 63 : 44;
        c[i] = bytes(next() >> (64 - bits));
        p[i] = bytes(next() >> (64 - bits));
        a[i] = bytes(p[i].count() - (next() >> (64 - bits)) % (p[i].count() + 1));
    }
    std::vector<bytes> ta(n), tb(n), na(n), nb(n);
    std::vector<provpol::extend_action> xa(n), xb(n);
    std::vector<std::uint8_t> fa(n), fb(n);
    const provpol::extend_batch_input in{provpol::batch_capacity(c), provpol::batch_physical(p),
                                         provpol::batch_allocation(a)};
    if (!provpol_batch_isa_a(in, {xa, provpol::batch_next_size(na), provpol::batch_block_threshold(ta), fa}) ||
        !batch_b(in, {xb, provpol::batch_next_size(nb), provpol::batch_block_threshold(tb), fb})) {
        std::printf("decide_batch refused the batch\n");
        return 1;
    }
    std::size_t wrong = 0;
    for (std::size_t i = 0; i < n; ++i) {
        const provpol::extend_decision d = provpol::vdsm_2022().decide(provpol::drive_state{
            provpol::drive_capacity(c[i]), provpol::drive_physical(p[i]), provpol::drive_allocation(a[i])});
        const unsigned f = (d.needs_extend ? 1u : 0u) | (d.improbable_allocation ? 2u : 0u) | (d.can_extend ? 4u : 0u);
        if (ta[i] != tb[i] || na[i] != nb[i] || fa[i] != fb[i] || xa[i] != xb[i] || ta[i] != d.block_threshold ||
            na[i] != d.next_size || fa[i] != f || xa[i] != d.action)
            ++wrong;
    }
    std::printf("%zu drives decided by a -mavx2 translation unit and a baseline one: %zu differ\n", n, wrong);
    return wrong == 0 ? 0 : 1;
}
