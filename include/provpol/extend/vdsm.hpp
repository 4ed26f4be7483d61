// provpol/extend/vdsm.hpp - oVirt VDSM's thin-volume extend rules as extend_policy steps: its configuration
// ([irs] volume_utilization_chunk_mb and volume_utilization_percent), the steps that play all three roles of
// extend/policy.hpp (vdsm_steps, with a fast path and a vectorised batch kernel), the qcow2-on-LVM limits on their
// own (qcow2_lvm_limits, for other policies over VDSM's storage), and the presets vdsm_2022 and vdsm_legacy.
//
// Sources: oVirt/vdsm lib/vdsm/virt/thinp.py (_should_extend_volume, the watermark limit), vm.py /
// drive.py (getNextVolumeSize, getMaxVolumeSize: the 1 MiB rounding and the 1.1 qcow2 overhead), storage
// blockVolume.py (calculate_volume_alloc_size), and the configuration change of BZ#2051997.
//
// SPDX-License-Identifier: MIT
#ifndef PROVPOL_EXTEND_VDSM_HPP
#define PROVPOL_EXTEND_VDSM_HPP

#include "../bytes.hpp"
#include "../config.hpp"
#include "../result.hpp"
#include "lvm_usage.hpp"
#include "policy.hpp"

#include <cstddef>
#include <cstdint>
#if !defined(__GNUC__) && !defined(__clang__)
#include <cstring>
#endif

namespace provpol {

namespace detail {
// floor(capacity * 11 / 10) for every uint64_t, saturating: with c = 10q + r, 11c/10 = 11q + r + r/10 and
// r/10 = 0, so the result is c + q. Rounded up to a MiB as VDSM does, this equals VDSM's float arithmetic,
// utils.round(capacity * 1.1, MiB), for every capacity below 465 TiB: the two can differ only where the exact
// 11c/10 lies a few tenths below a MiB multiple and the float product rounds up past it, and the first such
// capacity is 511772687788219 bytes (2^48.86; tests/extend_test.cpp searches the candidates and checks it).
// Above it provpol keeps the exact value.
constexpr std::uint64_t qcow2_overhead(std::uint64_t capacity) noexcept {
    return saturating_add(capacity, capacity / 10);
}

// roundup(floor(capacity * 1.1), a): VDSM's maximum volume size, rounded to a power of two a.
constexpr std::uint64_t qcow2_max(std::uint64_t capacity, std::uint64_t a) noexcept {
    return align_up(qcow2_overhead(capacity), a);
}
}  // namespace detail

/// VDSM's [irs] volume_utilization_chunk_mb and volume_utilization_percent, validated, with the derived
/// free-space limits precomputed so that deciding costs no division.
class vdsm_config {
public:
    /// The largest chunk accepted, in MiB (1 PiB): keeps the doubled chunk and every sum far from 2^64.
    static constexpr std::uint64_t max_chunk_mb = std::uint64_t{1} << 30;

    /// Validates VDSM's two settings: the chunk ([irs] volume_utilization_chunk_mb, given as a size: a whole number
    /// of MiB in [1 MiB, 1 PiB]) and the percent ([irs] volume_utilization_percent, in [0, 99]). The LVM extent (128
    /// MiB in oVirt block storage domains) is the unit lvextend rounds to: a power of two in [1 MiB, 16 GiB]. The
    /// chunk is a size, the percent an integer and the extent an lvm_extent_size, so no two of them can trade
    /// places (`make(2560_MiB, 20)`, `make(1024_MiB, 20, lvm_extent_size(128_MiB))`), and a bare number is never read
    /// as MiB.
    PROVPOL_NODISCARD static constexpr result<vdsm_config> make(
        bytes chunk, std::uint64_t percent,
        lvm_extent_size extent_size = lvm_extent_size(bytes(std::uint64_t{128} << 20))) noexcept {
        const bytes extent = extent_size.value;
        if (chunk.count() < (std::uint64_t{1} << 20) || chunk.count() > (max_chunk_mb << 20))
            return unexpected(error::out_of_range("volume_utilization_chunk_mb", error_value::of_size(chunk.count()),
                                                  error_value::of_size(std::uint64_t{1} << 20),
                                                  error_value::of_size(max_chunk_mb << 20)));
        if (chunk.count() % (std::uint64_t{1} << 20) != 0)
            return unexpected(error::not_a_multiple("volume_utilization_chunk_mb", error_value::of_size(chunk.count()),
                                                    error_value::of_size(std::uint64_t{1} << 20)));
        if (percent > 99)
            return unexpected(error::out_of_range("volume_utilization_percent", error_value::of(percent),
                                                  error_value::of(0), error_value::of(99)));
        if (!is_power_of_two(extent.count()))
            return unexpected(error::not_a_power_of_two("extent_size", error_value::of_size(extent.count())));
        if (extent.count() < (std::uint64_t{1} << 20) || extent.count() > (std::uint64_t{1} << 34))
            return unexpected(error::out_of_range("extent_size", error_value::of_size(extent.count()),
                                                  error_value::of_size(std::uint64_t{1} << 20),
                                                  error_value::of_size(std::uint64_t{1} << 34)));
        return vdsm_config(chunk.count() >> 20, static_cast<std::uint32_t>(percent), extent);
    }
    /// Refused: a bare size could be the chunk (make(128_MiB, 20, 1024_MiB) would validate). lvm_extent_size names it.
    static result<vdsm_config> make(bytes chunk, std::uint64_t percent, bytes extent) = delete;
    /// make's earlier name, kept for one release (CHANGELOG.md): make takes the chunk as a size now.
    [[deprecated("use make(bytes chunk, percent, lvm_extent_size extent)")]] PROVPOL_NODISCARD static constexpr result<
        vdsm_config>
    make_bytes(bytes chunk, std::uint64_t percent, bytes extent = bytes(std::uint64_t{128} << 20)) noexcept {
        return make(chunk, percent, lvm_extent_size(extent));
    }

    PROVPOL_NODISCARD constexpr std::uint64_t chunk_mb() const noexcept { return chunk_.count() >> 20; }
    PROVPOL_NODISCARD constexpr std::uint32_t percent() const noexcept { return percent_; }
    PROVPOL_NODISCARD constexpr bytes extent() const noexcept { return extent_; }
    /// The configured chunk (a new disk's size, and the extend step when not replicating).
    PROVPOL_NODISCARD constexpr bytes chunk() const noexcept { return chunk_; }
    /// The chunk used now: doubled while the drive is being copied (VDSM's VOLWM_CHUNK_REPLICATE_MULT = 2).
    PROVPOL_NODISCARD constexpr bytes chunk(bool replicating) const noexcept { return chunks_[replicating ? 1 : 0]; }
    /// VDSM's watermarkLimit: (100 - percent) * chunk // 100, of the chunk used now.
    PROVPOL_NODISCARD constexpr bytes limit(bool replicating) const noexcept { return limits_[replicating ? 1 : 0]; }

    friend constexpr bool operator==(const vdsm_config& a, const vdsm_config& b) noexcept {
        return a.chunk_ == b.chunk_ && a.percent_ == b.percent_ && a.extent_ == b.extent_;
    }
    friend constexpr bool operator!=(const vdsm_config& a, const vdsm_config& b) noexcept { return !(a == b); }

private:
    // The fast path's rounding reads extent - 1 and its complement, precomputed here; they are not API.
    friend class vdsm_steps;
    PROVPOL_NODISCARD constexpr std::uint64_t extent_mask() const noexcept { return extent_mask_; }
    PROVPOL_NODISCARD constexpr std::uint64_t extent_align() const noexcept { return extent_align_; }

    constexpr vdsm_config(std::uint64_t chunk_mb, std::uint32_t percent, bytes extent) noexcept
        : chunk_(chunk_mb << 20),
          chunks_{bytes(chunk_mb << 20), bytes(chunk_mb << 21)},
          limits_{ratio_of(bytes(chunk_mb << 20), 100 - percent, 100, rounding::down),
                  ratio_of(bytes(chunk_mb << 21), 100 - percent, 100, rounding::down)},
          extent_(extent),
          extent_mask_(extent.count() - 1),
          extent_align_(~(extent.count() - 1)),
          percent_(percent) {}

    bytes chunk_;
    // Indexed by `replicating`: a decision selects with one indexed load instead of a branch.
    bytes chunks_[2];
    bytes limits_[2];
    bytes extent_;
    std::uint64_t extent_mask_;
    std::uint64_t extent_align_;
    std::uint32_t percent_;
};

/// oVirt's limits for qcow2 on LVM: a 1.1 overhead factor for qcow2 metadata (VDSM's VOLWM_COW_OVERHEAD),
/// requests rounded up to 1 MiB (drive.getNextVolumeSize), LVs rounded up to the VG extent by lvextend. Made
/// only from a validated vdsm_config (its extent is a power of two in [1 MiB, 16 GiB]).
class qcow2_lvm_limits {
public:
    constexpr explicit qcow2_lvm_limits(const vdsm_config& c) noexcept : extent_(c.extent()) {}

    PROVPOL_NODISCARD constexpr bytes extent() const noexcept { return extent_; }
    /// roundup(floor(capacity * 1.1), 1 MiB): VDSM's drive.getMaxVolumeSize.
    PROVPOL_NODISCARD constexpr bytes max_size(bytes capacity) const noexcept {
        return bytes(detail::qcow2_max(capacity.count(), std::uint64_t{1} << 20));
    }
    /// roundup(floor(capacity * 1.1), extent): the maximum as the storage side creates volumes.
    PROVPOL_NODISCARD constexpr bytes max_size_storage(bytes capacity) const noexcept {
        return bytes(detail::qcow2_max(capacity.count(), extent_.count()));
    }
    /// roundup(physical + chunk, 1 MiB).
    PROVPOL_NODISCARD constexpr bytes request(bytes physical, bytes chunk) const noexcept {
        return bytes(align_up(saturating_add(physical.count(), chunk.count()), std::uint64_t{1} << 20));
    }
    /// roundup(requested, extent): what lvextend makes of a request.
    PROVPOL_NODISCARD constexpr bytes lv_size(bytes requested) const noexcept {
        return bytes(align_up(requested.count(), extent_.count()));
    }

private:
    bytes extent_;
};

namespace detail {

// memcpy: the builtin where the compiler has it (no <cstring> in a decision header), std::memcpy elsewhere.
inline void copy_object_bytes(void* to, const void* from, std::size_t n) noexcept {
#if defined(__GNUC__) || defined(__clang__)
    __builtin_memcpy(to, from, n);
#else
    std::memcpy(to, from, n);
#endif
}

// Inputs below 2^63 keep every sum of the VDSM fast path below 2^64: the largest is
// capacity + capacity / 10 + (extent - 1) < 0.55 * 2^64 + 2^34 (vdsm_config: extent <= 16 GiB).
constexpr unsigned vdsm_fast_bits = 63;

// VDSM's batch works in blocks of 32 drives: a fixed trip count, which GCC's -O2 vectoriser (the "very
// cheap" cost model, which accepts a loop only when the vector code replaces all of it) takes, and a whole
// number of 16- and 32-byte vectors of one-byte flags.
constexpr std::size_t vdsm_batch_block = 32;
// The block path is exact when every capacity, physical and allocation of the block is below 2^47 (128 TiB);
// other blocks are decided drive by drive (see vdsm_batch_lanes).
constexpr unsigned vdsm_batch_bits = 47;

// decide() of VDSM's steps for 32 drives that are not replicating and have no threshold event, with
// chunk <= 2^50 and limit <= chunk (vdsm_config::make). Returns false, and the outputs are meaningless, when
// an input of the block is 2^47 (128 TiB) or more: the caller then decides the block drive by drive. Checking
// inside the loop (an OR of the inputs it loads anyway) instead of in a pass before it is 20% faster with AVX2.
//
// Written in the operations SSE2 has for every lane (64-bit add, subtract, shift, and; 32-bit compare;
// int32 <-> double), with no branch; differences are taken modulo 2^64 or 2^32 and their sign bit read:
//   block threshold  max(physical - limit, 1), with the sign of the difference as the select;
//   needs extend     physical - limit < allocation, the sign of (physical - limit) - allocation;
//   max size         in MiB: ceil(floor(11 capacity / 10) / 2^20) = floor(z / 10) with
//                    z = floor((11 capacity + 10 * 2^20 - 10) / 2^20) < 2^31; floor(z / 10) is the truncated
//                    double product z * 0.1: the double nearest 0.1 is above 0.1 and the product's error is
//                    below 1e-7, so an exact quotient k is never computed below k and a quotient k + j/10
//                    (j >= 1) never reaches k + 1, in every rounding mode;
//   next size        max(min(ceil((physical + chunk) / 2^20), max) MiB, physical) (chunk is whole MiB), the
//                    larger chosen by the sign of their 64-bit difference;
//   can extend       physical < max size, i.e. floor(physical / 2^20) < max MiB;
//   improbable       allocation > min(request, max) MiB (VDSM's getNextVolumeSize, before the floor at
//                    physical), the sign of that size - allocation;
//   action           extend_action_of without a threshold event, as masks: needs extend (0 or 1), 2 where the
//                    drive cannot extend, 3 where the allocation is improbable.
// Below 2^47 every MiB count fits in 31 bits, so the 32-bit differences' signs are the comparisons. The flags
// and the action are built in 32-bit lanes and narrowed to bytes once, after the loop (the flags only when asked).
// (A template so that it is compiled with the kernel, where a batch is decided.)
template <class Deferred = void>
PROVPOL_MODULAR_ARITHMETIC PROVPOL_ALWAYS_INLINE bool vdsm_batch_lanes(
    std::uint64_t chunk, std::uint64_t limit, const bytes* PROVPOL_RESTRICT capacity,
    const bytes* PROVPOL_RESTRICT physical, const bytes* PROVPOL_RESTRICT allocation, bytes* PROVPOL_RESTRICT threshold,
    bytes* PROVPOL_RESTRICT next_size, extend_action* PROVPOL_RESTRICT action,
    std::uint8_t* PROVPOL_RESTRICT flags) noexcept {
    constexpr std::uint64_t mib_mask = (std::uint64_t{1} << 20) - 1;
    constexpr std::uint64_t max_size_bias = (std::uint64_t{10} << 20) - 10;
    const std::uint64_t request_bias = chunk + mib_mask;
    std::uint64_t any = 0;
    std::uint32_t bits[vdsm_batch_block];  // every element is written below; not zeroed (no rep stos per block)
    // The sizes as plain words: GCC's vectoriser does not take the loop over bytes' member (it asks for an alias check
    // it will not emit), and memcpy is how a trivially copyable value's representation is read and written.
    std::uint64_t cap[vdsm_batch_block], phys[vdsm_batch_block], alloc[vdsm_batch_block];
    copy_object_bytes(cap, capacity, sizeof cap);
    copy_object_bytes(phys, physical, sizeof phys);
    copy_object_bytes(alloc, allocation, sizeof alloc);
    for (std::size_t i = 0; i < vdsm_batch_block; ++i) {
        const std::uint64_t c = cap[i];
        const std::uint64_t p = phys[i];
        const std::uint64_t a = alloc[i];
        any |= c | p | a;
        const std::uint64_t free_limit = p - limit;  // physical - limit; the sign bit says physical < limit
        const std::uint64_t below = free_limit - 1;
        threshold[i] = bytes((below & ((below >> 63) - 1)) + 1);
        const std::uint32_t needs = static_cast<std::uint32_t>((free_limit - a) >> 63);
        const std::int32_t z = static_cast<std::int32_t>(static_cast<std::uint32_t>((11 * c + max_size_bias) >> 20));
        const std::int32_t max_mib = static_cast<std::int32_t>(static_cast<double>(z) * 0.1);
        const std::int32_t request_mib =
            static_cast<std::int32_t>(static_cast<std::uint32_t>((p + request_bias) >> 20));
        const std::int32_t next_mib = request_mib < max_mib ? request_mib : max_mib;
        const std::uint64_t capped = static_cast<std::uint64_t>(static_cast<std::uint32_t>(next_mib)) << 20;
        const std::uint64_t keep = 0 - ((capped - p) >> 63);  // all ones when capped < physical
        const std::uint64_t next = (p & keep) | (capped & ~keep);
        next_size[i] = bytes(next);
        const std::uint32_t physical_mib = static_cast<std::uint32_t>(p >> 20);
        const std::uint32_t improbable = static_cast<std::uint32_t>((capped - a) >> 63);
        const std::uint32_t can = (physical_mib - static_cast<std::uint32_t>(max_mib)) >> 31;
        const std::uint32_t can_mask = 0U - can, improbable_mask = 0U - improbable;
        const std::uint32_t act = (3U & improbable_mask) | (((needs & can_mask) | (2U & ~can_mask)) & ~improbable_mask);
        bits[i] = needs | (improbable << 1) | (can << 2) | (act << 3);
    }
    if (flags != nullptr)
        for (std::size_t i = 0; i < vdsm_batch_block; ++i) flags[i] = static_cast<std::uint8_t>(bits[i] & 7U);
    for (std::size_t i = 0; i < vdsm_batch_block; ++i) action[i] = static_cast<extend_action>(bits[i] >> 3);
    return (any >> vdsm_batch_bits) == 0;
}

// On x86 with GCC or Clang the blocks are compiled twice, for the baseline and for AVX2 (four 64-bit lanes per
// vector instead of SSE2's two, three-operand instructions), and the AVX2 build is chosen at run time when the CPU
// has it: at g++ -O2 the SSE2 blocks cost 40.2 instructions per drive and the AVX2 ones 21.9 (bench/README.md). The
// choice depends on the CPU only, never on the flags a translation unit is compiled with, so every translation unit has
// the same definition (tests/packaging links one built with -mavx2 and one without and compares them).
#if (defined(__GNUC__) || defined(__clang__)) && (defined(__x86_64__) || defined(__i386__))
/// Defined when decide_batch has an AVX2 build of VDSM's blocks, chosen at run time (x86, GCC or Clang).
#define PROVPOL_EXTEND_BATCH_AVX2 1
inline bool cpu_has_avx2() noexcept { return __builtin_cpu_supports("avx2"); }
#endif

// True when drives [i, i + vdsm_batch_block) have no replication and no threshold event (the blocks' case).
PROVPOL_ALWAYS_INLINE constexpr bool vdsm_batch_plain(const extend_batch_input& in, std::size_t i) noexcept {
    bool any = false;
    if (!in.replicating.empty())
        for (std::size_t j = i; j < i + vdsm_batch_block; ++j) any = any || in.replicating[j];
    if (!in.threshold_exceeded.empty())
        for (std::size_t j = i; j < i + vdsm_batch_block; ++j) any = any || in.threshold_exceeded[j];
    return !any;
}

// Decides the whole blocks of a VDSM batch and returns how many drives that is; a block with a size of 2^47 or
// more, a replicating drive or a threshold event goes through one(i) drive by drive.
template <class DecideOne>
PROVPOL_ALWAYS_INLINE std::size_t vdsm_batch_blocks(std::uint64_t chunk, std::uint64_t limit,
                                                    const extend_batch_input& in, const extend_batch_output& out,
                                                    DecideOne& one) noexcept {
    std::size_t i = 0;
    std::uint8_t* const flags = out.flags.empty() ? nullptr : out.flags.data();
    for (; in.size() - i >= vdsm_batch_block; i += vdsm_batch_block) {
        if (PROVPOL_UNLIKELY(!vdsm_batch_plain(in, i) ||
                             !vdsm_batch_lanes(chunk, limit, in.capacity.data() + i, in.physical.data() + i,
                                               in.allocation.data() + i, out.block_threshold.data() + i,
                                               out.next_size.data() + i, out.action.data() + i,
                                               flags == nullptr ? nullptr : flags + i))) {
            for (std::size_t j = i; j < i + vdsm_batch_block; ++j) one(j);
        }
    }
    return i;
}
#ifdef PROVPOL_EXTEND_BATCH_AVX2
template <class DecideOne>
__attribute__((target("avx2"))) std::size_t vdsm_batch_blocks_avx2(std::uint64_t chunk, std::uint64_t limit,
                                                                   const extend_batch_input& in,
                                                                   const extend_batch_output& out,
                                                                   DecideOne& one) noexcept {
    return vdsm_batch_blocks(chunk, limit, in, out, one);
}
#endif

}  // namespace detail

/// VDSM's rules, one value playing extend_policy's three roles (the configuration held once):
/// - trigger: extend when free space falls under the watermark limit, (100 - percent) x chunk // 100; an
///   allocation above getNextVolumeSize(), min(physical + chunk, maximum) in whole MiB, is improbable (VDSM
///   pauses the VM: BZ#998443), also when the LV was rounded up past the maximum and that size is below it;
/// - growth: one chunk (doubled while replicating); a new disk gets min(chunk, capacity);
/// - limits: qcow2_lvm_limits of the configuration's extent.
/// Made only from a validated vdsm_config. Offers a fast path (decide_fast: sizes below 2^63, no saturation
/// checks) and a batch kernel (decide_batch_prefix: blocks of 32 drives below 128 TiB).
class vdsm_steps {
public:
    constexpr explicit vdsm_steps(const vdsm_config& c) noexcept : config(c) {}

    vdsm_config config;  ///< the configuration: any vdsm_config is valid (it is made only by make())

    // Trigger
    PROVPOL_NODISCARD constexpr bytes limit(const drive_state& d, bytes /*chunk*/) const noexcept {
        return config.limit(d.replicating);
    }
    PROVPOL_NODISCARD constexpr bool improbable(const drive_state& d, bytes requested) const noexcept {
        return d.allocation > requested;
    }
    // Growth
    PROVPOL_NODISCARD constexpr bytes chunk(const drive_state& d) const noexcept { return config.chunk(d.replicating); }
    PROVPOL_NODISCARD constexpr bytes initial_size(bytes capacity) const noexcept {
        return min(config.chunk(), capacity);
    }
    // Limits
    PROVPOL_NODISCARD constexpr bytes max_size(bytes capacity) const noexcept {
        return qcow2_lvm_limits(config).max_size(capacity);
    }
    PROVPOL_NODISCARD constexpr bytes max_size_storage(bytes capacity) const noexcept {
        return qcow2_lvm_limits(config).max_size_storage(capacity);
    }
    PROVPOL_NODISCARD constexpr bytes request(bytes physical, bytes chunk) const noexcept {
        return qcow2_lvm_limits(config).request(physical, chunk);
    }
    PROVPOL_NODISCARD constexpr bytes lv_size(bytes requested) const noexcept {
        return qcow2_lvm_limits(config).lv_size(requested);
    }

    /// The fast path, when capacity, physical and allocation are below 2^63: no sum below reaches 2^64 (chunk
    /// <= 2^51 and limit <= chunk, extent <= 2^34 by vdsm_config::make; see detail::vdsm_fast_bits), so every
    /// saturating step reduces to plain arithmetic, and every output equals the steps' (tests/extend_fast_test.cpp
    /// compares them).
    PROVPOL_NODISCARD constexpr bool fast_path_applies(const drive_state& d) const noexcept {
        return ((d.capacity.count() | d.physical.count() | d.allocation.count()) >> detail::vdsm_fast_bits) == 0;
    }
    PROVPOL_NODISCARD constexpr extend_decision decide_fast(const drive_state& d) const noexcept {
        constexpr std::uint64_t mib_mask = (std::uint64_t{1} << 20) - 1;
        const std::uint64_t c = d.capacity.count();
        const std::uint64_t p = d.physical.count();
        const std::uint64_t a = d.allocation.count();
        const std::uint64_t e = config.extent_mask();
        const std::uint64_t not_e = config.extent_align();
        const std::uint64_t chunk = config.chunk(d.replicating).count();
        const std::uint64_t limit = config.limit(d.replicating).count();
        const std::uint64_t overhead = c + c / 10;  // qcow2_overhead without saturation
        extend_decision out{};
        out.chunk = bytes(chunk);
        out.limit = bytes(limit);
        out.block_threshold = bytes(p > limit ? p - limit : 1);
        out.needs_extend = p < a + limit;  // a > p, or p - a < limit
        out.max_size = bytes((overhead + mib_mask) & ~mib_mask);
        out.can_extend = p < out.max_size.count();
        const std::uint64_t request = (p + chunk + mib_mask) & ~mib_mask;
        const std::uint64_t capped = request < out.max_size.count() ? request : out.max_size.count();
        const std::uint64_t next = capped < p ? p : capped;  // never below physical (extend_decision::next_size)
        out.next_size = bytes(next);
        out.improbable_allocation = a > capped;  // VDSM compares with getNextVolumeSize itself (decide_steps)
        const std::uint64_t lv = (next + e) & not_e;
        out.lv_size_after_extend = bytes(lv);
        out.next_block_threshold = bytes(lv > limit ? lv - limit : 1);
        out.max_size_storage = bytes((overhead + e) & not_e);
        const std::uint64_t base = config.chunk().count();
        out.initial_size = bytes(((c < base ? c : base) + e) & not_e);
        out.action =
            detail::extend_action_of(out.can_extend, d.threshold_exceeded, out.improbable_allocation, out.needs_extend);
        return out;
    }

    /// The batch kernel: VDSM's decisions for whole blocks of 32 drives, vectorised (AVX2 where the CPU has it); a
    /// block with a replicating drive or a threshold event is left to decide().
    template <class DecideOne>
    std::size_t decide_batch_prefix(const extend_batch_input& in, const extend_batch_output& out,
                                    DecideOne&& one) const noexcept {
        const std::uint64_t chunk = config.chunk().count();
        const std::uint64_t lim = config.limit(false).count();
#ifdef PROVPOL_EXTEND_BATCH_AVX2
        if (detail::cpu_has_avx2()) return detail::vdsm_batch_blocks_avx2(chunk, lim, in, out, one);
#endif
        return detail::vdsm_batch_blocks(chunk, lim, in, out, one);
    }
};

/// oVirt VDSM's policy type.
using vdsm_policy = extend_policy<vdsm_steps, vdsm_steps, vdsm_steps>;

/// A VDSM policy from a validated configuration.
PROVPOL_NODISCARD constexpr vdsm_policy make_vdsm_policy(const vdsm_config& c) noexcept {
    return vdsm_policy(vdsm_steps(c));
}

namespace detail {
// The block kernels with the policy's own decision for the drives they leave, for the tests and benchmarks that
// call a kernel directly. Policy is vdsm_policy; templates, so that a translation unit that does not call them
// does not instantiate the kernels and the policy's decision for them.
template <class Policy>
std::size_t vdsm_batch_blocks(const Policy& p, const extend_batch_input& in, const extend_batch_output& out) noexcept {
    auto one = [&](std::size_t j) noexcept { decide_batch_one(p, in, out, j); };
    return vdsm_batch_blocks(p.trigger().config.chunk().count(), p.trigger().config.limit(false).count(), in, out, one);
}
#ifdef PROVPOL_EXTEND_BATCH_AVX2
template <class Policy>
std::size_t vdsm_batch_blocks_avx2(const Policy& p, const extend_batch_input& in,
                                   const extend_batch_output& out) noexcept {
    auto one = [&](std::size_t j) noexcept { decide_batch_one(p, in, out, j); };
    return vdsm_batch_blocks_avx2(p.trigger().config.chunk().count(), p.trigger().config.limit(false).count(), in, out,
                                  one);
}
#endif
}  // namespace detail

// ============================================================================================================
// Presets

/// oVirt VDSM 4.50 (2022, BZ#2051997): volume_utilization_chunk_mb = 2560, volume_utilization_percent = 20:
/// extend by 2.5 GiB when free space falls under 2048 MiB; a new empty disk takes 2.5 GiB.
PROVPOL_NODISCARD constexpr vdsm_policy vdsm_2022() noexcept {
    return make_vdsm_policy(detail::valid(vdsm_config::make(bytes(std::uint64_t{2560} << 20), 20)));
}

/// oVirt VDSM before 4.50: volume_utilization_chunk_mb = 1024, volume_utilization_percent = 50: extend by
/// 1 GiB when free space falls under 512 MiB; a new empty disk takes 1 GiB.
PROVPOL_NODISCARD constexpr vdsm_policy vdsm_legacy() noexcept {
    return make_vdsm_policy(detail::valid(vdsm_config::make(bytes(std::uint64_t{1024} << 20), 50)));
}

// ============================================================================================================
// Creating volumes with an explicit initial size

/// A new volume's size when the caller asks for an explicit initial size (VDSM's
/// calculate_volume_alloc_size for sparse volumes): floor(initial * 1.1) for qcow2 metadata, the initial size
/// rejected when above the storage-side maximum for the capacity. Returns the LV size (rounded up to the extent).
template <class Limits, class = detail::enable_if_t<is_extend_limits_v<Limits>>>
PROVPOL_NODISCARD constexpr result<bytes> initial_size_for(const Limits& limits, bytes capacity,
                                                           bytes requested) noexcept {
    // blockVolume.py: the request itself is checked against the maximum, and the overhead added after (so an
    // initial size equal to the maximum gives an LV above it, as VDSM's own comment there says).
    const bytes maximum = limits.max_size_storage(capacity);
    if (requested > maximum)
        return unexpected(error::out_of_range("initial_size", error_value::of_size(requested.count()),
                                              error_value::of_size(0), error_value::of_size(maximum.count())));
    return limits.lv_size(bytes(detail::qcow2_overhead(requested.count())));
}

/// True when an extend succeeded: the LV is at least the requested size (VDSM's _verify_volume_extension).
PROVPOL_NODISCARD constexpr bool extend_succeeded(bytes requested, bytes lv_size) noexcept {
    return lv_size >= requested;
}

}  // namespace provpol

#endif  // PROVPOL_EXTEND_VDSM_HPP
