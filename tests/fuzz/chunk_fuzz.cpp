// Fuzzes the chunk-size policy and the calibration fit: for any device limits and mode that validate, every
// decision is aligned to every granularity the device reports (and to O_DIRECT's alignment in direct mode),
// lies within [floor, max transfer], says truthfully which step decided, and replays identically; limits that
// contradict each other are rejected; the cost-model fit never returns a non-finite or negative model.
#include "fuzz_check.hpp"

#include <provpol/chunk.hpp>
#include <provpol/fit/chunk.hpp>

#include <cstdint>
#include <initializer_list>

namespace {

using namespace provpol;

std::uint64_t pick_block(fuzz::reader& in) {
    const std::uint8_t k = in.u8();
    if (k < 200) return (k % 2 == 0) ? 0 : std::uint64_t{1} << (9 + (k / 2) % 10);  // unknown, or 512 .. 256 KiB
    return in.size_like();                                                          // anything at all
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    fuzz::reader in(data, size);
    device_limits l;
    l.logical_block_size = bytes(pick_block(in));
    l.physical_block_size = bytes(pick_block(in));
    l.minimum_io_size = bytes(pick_block(in));
    l.optimal_io_size = bytes(in.flag() ? saturating_mul(pick_block(in), 1 + in.u8() % 7) : 0);
    l.max_transfer_size =
        bytes(in.flag() ? (std::uint64_t{1} << (12 + in.u8() % 20)) * (1 + in.u8() % 3) : in.size_like() * in.flag());
    l.dio_mem_align = bytes(pick_block(in));
    l.dio_offset_align = bytes(pick_block(in));
    l.stat_block_size = bytes(pick_block(in));
    const auto mode = static_cast<io_mode>(in.u8() % 4);
    const bytes def(in.flag() ? (std::uint64_t{1} << (in.u8() % 40)) : in.size_like());
    const bytes request(in.flag() ? 0 : in.size_like());

    const auto p = basic_chunk_policy<fixed_default>::make(l, mode, fixed_default{def});
    if (p) {
        const chunk_decision d = p->decide(request);
        const std::uint64_t v = d.size.count();
        PROVPOL_FUZZ_CHECK(v >= 1);
        PROVPOL_FUZZ_CHECK(v >= p->min_chunk().count() && v <= p->max_chunk().count());
        PROVPOL_FUZZ_CHECK(v % p->granularity().count() == 0);
        for (bytes g : {l.logical_block_size, l.physical_block_size, l.minimum_io_size})
            PROVPOL_FUZZ_CHECK(g.count() == 0 || v % g.count() == 0);
        if (is_direct(mode)) {
            PROVPOL_FUZZ_CHECK(l.dio_offset_align.count() == 0 || v % l.dio_offset_align.count() == 0);
            PROVPOL_FUZZ_CHECK(v % 512 == 0);  // never a size O_DIRECT cannot use
        }
        PROVPOL_FUZZ_CHECK(l.max_transfer_size.count() == 0 || v <= l.max_transfer_size.count() ||
                           v == p->min_chunk().count());
        PROVPOL_FUZZ_CHECK(d.decided_by != chunk_step::max_transfer || v == p->max_chunk().count());
        PROVPOL_FUZZ_CHECK(d.decided_by != chunk_step::floor || v == p->floor().count());
        PROVPOL_FUZZ_CHECK(d.decided_by != chunk_step::default_size || v == p->default_size().count());
        PROVPOL_FUZZ_CHECK(d.decided_by != chunk_step::requested || v == request.count());
        PROVPOL_FUZZ_CHECK(p->decide(request) == d);
        // Monotone: a larger request never gives a smaller chunk.
        const chunk_decision bigger =
            p->decide(bytes(request.count() == 0 ? 0 : saturating_add(request.count(), in.u32())));
        PROVPOL_FUZZ_CHECK(request.count() == 0 || bigger.size >= d.size);
    } else {
        PROVPOL_FUZZ_CHECK(p.error().message().size() > 0);
    }

    // The fit: whatever finite positive samples come in, a model comes out finite and non-negative, or an error.
    throughput_sample s[6];
    const std::size_t n = 1 + in.u8() % 6;
    for (std::size_t i = 0; i < n; ++i) {
        s[i].block_size = bytes(std::uint64_t{1} << (9 + in.u8() % 20));
        s[i].bytes_per_second = 1.0 + static_cast<double>(in.u32() % 4000000) * 1000.0;
    }
    const auto fit = fit_cost_model(s, n);
    if (fit) {
        PROVPOL_FUZZ_CHECK(fit->model.latency_seconds.count() >= 0.0 && fit->model.latency_seconds.count() < 1e30);
        PROVPOL_FUZZ_CHECK(fit->model.bandwidth_bytes_per_second > 0.0 &&
                           fit->model.bandwidth_bytes_per_second < 1e300);
    }
    return 0;
}
