// provpol/extend/policy.hpp - the generic thin-volume extend policy: extend_policy<Trigger, Growth, Limits>, the
// drive it decides for, every output of a decision, and the contracts of its steps.
//
// An agent feeds what libvirt reports for a drive (capacity = virtual size, physical = LV size, allocation =
// highest written offset) and gets back every decision: the block threshold to register, whether to extend, the
// next size, the LV size after the storage's rounding, the threshold after the extend, the maximum size and the
// size of a new disk. extend/vdsm.hpp and extend/lvm.hpp hold oVirt VDSM's and LVM2's steps and presets; this
// header knows no preset by name.
//
// A policy is extend_policy<Trigger, Growth, Limits>, each step a small value type (a step type may play
// several roles, and one that plays all three is stored once):
//
//   Trigger  when to extend (is_extend_trigger_v).
//     constexpr bytes limit(const drive_state&, bytes chunk) const noexcept
//         the free-space limit: the drive needs an extend when physical - allocation < limit;
//     constexpr bool improbable(const drive_state&, bytes requested) const noexcept
//         true when the reported allocation cannot be real (the agent pauses instead of extending);
//         requested is min(request(physical, chunk), max_size), the size the growth would ask for before
//         decide() keeps next_size from falling below physical (VDSM's getNextVolumeSize, which is below
//         physical when an LV was rounded up past the maximum).
//   Growth   how much to add (is_extend_growth_v).
//     constexpr bytes chunk(const drive_state&) const noexcept
//         the amount the next extend adds (before rounding and the maximum);
//     constexpr bytes initial_size(bytes capacity) const noexcept
//         the size of a new, empty volume before extent rounding.
//   Limits   the storage's rules (is_extend_limits_v).
//     constexpr bytes max_size(bytes capacity) const noexcept          the largest size an extend may request;
//     constexpr bytes max_size_storage(bytes capacity) const noexcept  the same, rounded as the storage creates it;
//     constexpr bytes request(bytes physical, bytes chunk) const noexcept
//         the size requested for physical + chunk (before the maximum);
//     constexpr bytes lv_size(bytes requested) const noexcept          the LV size the storage makes of a request.
//
// Customization points, open to any step type that plays all three roles:
//   constexpr bool fast_path_applies(const drive_state&) const noexcept
//   constexpr extend_decision decide_fast(const drive_state&) const noexcept
//       a fast path: where it applies, decide_fast decides instead of the steps (with their saturating
//       arithmetic), and must give exactly what they give (has_fast_decide_v).
//   template <class DecideOne> std::size_t decide_batch_prefix(const extend_batch_input&,
//           const extend_batch_output&, DecideOne&& one) const noexcept
//       decide_batch's kernel: decides drives [0, n) of a batch, calling one(i) for any it leaves to decide(),
//       and returns n; decide_batch decides the rest one by one (has_batch_prefix_v).
//
// Every step function is constexpr, noexcept and total over all inputs (sizes saturate near 2^64, never wrap).
// Configurations are validated once, by make(); deciding cannot fail.
//
// SPDX-License-Identifier: MIT
#ifndef PROVPOL_EXTEND_POLICY_HPP
#define PROVPOL_EXTEND_POLICY_HPP

#include "../bytes.hpp"
#include "../config.hpp"
#include "../detail/traits.hpp"
#include "../result.hpp"

#include <cstddef>
#include <cstdint>

namespace provpol {

/// drive_state's three sizes, each a type named for its role (libvirt's virDomainBlockInfo: capacity, physical,
/// allocation). drive_state's constructor takes only these, so passing a size in the wrong role does not compile:
/// VDSM itself treats no combination of the three as impossible (oVirt/vdsm lib/vdsm/virt/thinp.py at fd4b0df
/// reads them from libvirt's block stats unchecked; an allocation past the next size pauses the VM, a physical
/// size at the maximum stops the extends), so no check made when the state is built could catch a swap.
struct drive_capacity {
    constexpr explicit drive_capacity(bytes v) noexcept : value(v) {}
    bytes value;  ///< the virtual size the guest sees
};
/// The logical volume's size now (libvirt's physical).
struct drive_physical {
    constexpr explicit drive_physical(bytes v) noexcept : value(v) {}
    bytes value;  ///< the LV's size
};
/// The highest offset written (libvirt's allocation).
struct drive_allocation {
    constexpr explicit drive_allocation(bytes v) noexcept : value(v) {}
    bytes value;  ///< the highest offset written
};

/// What an agent knows about one drive when it decides. Made from its three sizes by role,
/// `drive_state{drive_capacity(10_GiB), drive_physical(5_GiB), drive_allocation(4_GiB)}`; the flags and the write
/// rate are set by name (`s.replicating = true`). A default-made state is all zeros.
struct drive_state {
    bytes capacity;  ///< the virtual size the guest sees (qcow2 virtual size; for a thin pool, the most it may grow to)
    bytes physical;  ///< the size of the logical volume now
    bytes allocation;                 ///< the highest offset written (libvirt's allocation, QEMU's wr_highest_offset)
    bool replicating = false;         ///< the drive is being copied (live storage migration): VDSM doubles the chunk
    bool threshold_exceeded = false;  ///< a block-threshold event arrived since the last extend
    rate write_rate{};                ///< the observed write rate (0: unknown); static steps ignore it

    constexpr drive_state() noexcept = default;
    constexpr drive_state(drive_capacity c, drive_physical p, drive_allocation a) noexcept
        : capacity(c.value), physical(p.value), allocation(a.value) {}
};

/// What the agent should do now.
enum class extend_action : unsigned char {
    none = 0,              ///< enough free space: only keep the block threshold registered
    extend = 1,            ///< request an extend to next_size
    at_maximum = 2,        ///< the volume is at its maximum: no request; monitoring can stop until a resize
    pause_improbable = 3,  ///< the allocation cannot be real: pause the guest instead of extending (VDSM, BZ#998443)
};

/// Every output of one decision.
struct extend_decision {
    bytes chunk;                 ///< the amount an extend adds now (doubled while replicating, for VDSM)
    bytes limit;                 ///< the free-space limit: extend when physical - allocation < limit
    bytes block_threshold;       ///< the threshold to register now: max(1, physical - limit); 0 means "clear"
    bool needs_extend;           ///< physical - allocation < limit (allocation above physical counts as no free space)
    bool improbable_allocation;  ///< the reported allocation cannot be real
    bool can_extend;             ///< physical < max_size
    bytes max_size;              ///< the largest size an extend may request
    bytes next_size;             ///< the size to request: min(request(physical, chunk), max_size), never below
                                 ///< physical (at the maximum: physical, no request)
    bytes lv_size_after_extend;  ///< what the storage makes of next_size (LVM extent rounding)
    bytes next_block_threshold;  ///< the threshold to register after the extend, from the real LV size
    bytes max_size_storage;      ///< the maximum as the storage creates volumes (rounded to the extent)
    bytes initial_size;          ///< the LV size of a new empty volume
    extend_action action;        ///< what to do now (see extend_action)

    friend constexpr bool operator==(const extend_decision& a, const extend_decision& b) noexcept {
        return a.chunk == b.chunk && a.limit == b.limit && a.block_threshold == b.block_threshold &&
               a.needs_extend == b.needs_extend && a.improbable_allocation == b.improbable_allocation &&
               a.can_extend == b.can_extend && a.max_size == b.max_size && a.next_size == b.next_size &&
               a.lv_size_after_extend == b.lv_size_after_extend && a.next_block_threshold == b.next_block_threshold &&
               a.max_size_storage == b.max_size_storage && a.initial_size == b.initial_size && a.action == b.action;
    }
    friend constexpr bool operator!=(const extend_decision& a, const extend_decision& b) noexcept { return !(a == b); }
};

/// The name of an action, for logs and the CLI ("none", "extend", "at-maximum", "pause-improbable").
PROVPOL_NODISCARD constexpr const char* to_text(extend_action a) noexcept {
    switch (a) {
        case extend_action::none:
            return "none";
        case extend_action::extend:
            return "extend";
        case extend_action::at_maximum:
            return "at-maximum";
        case extend_action::pause_improbable:
            return "pause-improbable";
    }
    return "unknown";
}
/// to_text's earlier name, kept for one release (CHANGELOG.md): every enum of the library has to_text, and only
/// that name.
[[deprecated("use to_text(extend_action)")]] PROVPOL_NODISCARD constexpr const char* to_string(
    extend_action a) noexcept {
    return to_text(a);
}

/// The block threshold for a volume of `physical` bytes and a free-space limit: max(1, physical - limit).
/// 1 is the smallest meaningful threshold; 0 is reserved for clearing the threshold (QEMU and libvirt).
PROVPOL_NODISCARD constexpr bytes block_threshold(bytes physical, bytes limit) noexcept {
    return max(bytes(1), saturating_sub(physical, limit));
}

namespace detail {

// VDSM's order (lib/vdsm/virt/thinp.py at oVirt/vdsm fd4b0df): after a threshold event (_handle_exceeded) the
// drive is extended whatever the allocation says (libvirt may still report the old value), unless it is at
// the maximum; without one (_handle_unset) _drive_needs_extend's improbable-allocation check comes first and
// pauses the VM even at the maximum (as 4.50.0's drivemonitor.should_extend_volume did), then at the maximum
// nothing is requested, and low free space extends. Written as selects on small integers so that compilers
// emit conditional moves, not branches on data.
constexpr extend_action extend_action_of(bool can_extend, bool threshold_exceeded, bool improbable,
                                         bool needs_extend) noexcept {
    unsigned a = needs_extend || threshold_exceeded ? 1u : 0u;
    a = can_extend ? a : 2u;
    a = improbable && !threshold_exceeded ? 3u : a;
    return static_cast<extend_action>(a);
}

}  // namespace detail

// ============================================================================================================
// The steps' contracts

namespace detail {
template <class T, class = void>
struct has_limit : detail::false_type {};
template <class T>
struct has_limit<
    T, detail::enable_if_t<detail::is_same_v<
           decltype(detail::declval<const T&>().limit(detail::declval<const drive_state&>(), bytes())), bytes>>>
    : detail::true_type {};
template <class T, class = void>
struct has_improbable : detail::false_type {};
template <class T>
struct has_improbable<
    T, detail::enable_if_t<detail::is_same_v<
           decltype(detail::declval<const T&>().improbable(detail::declval<const drive_state&>(), bytes())), bool>>>
    : detail::true_type {};
template <class T, class = void>
struct has_chunk : detail::false_type {};
template <class T>
struct has_chunk<T, detail::enable_if_t<detail::is_same_v<
                        decltype(detail::declval<const T&>().chunk(detail::declval<const drive_state&>())), bytes>>>
    : detail::true_type {};
template <class T, class = void>
struct has_initial_size : detail::false_type {};
template <class T>
struct has_initial_size<
    T, detail::enable_if_t<detail::is_same_v<decltype(detail::declval<const T&>().initial_size(bytes())), bytes>>>
    : detail::true_type {};
template <class T, class = void>
struct has_limits_api : detail::false_type {};
template <class T>
struct has_limits_api<
    T, detail::enable_if_t<detail::is_same_v<decltype(detail::declval<const T&>().max_size(bytes())), bytes> &&
                           detail::is_same_v<decltype(detail::declval<const T&>().max_size_storage(bytes())), bytes> &&
                           detail::is_same_v<decltype(detail::declval<const T&>().request(bytes(), bytes())), bytes> &&
                           detail::is_same_v<decltype(detail::declval<const T&>().lv_size(bytes())), bytes>>>
    : detail::true_type {};
template <class T, class = void>
struct has_fast_decide : detail::false_type {};
template <class T>
struct has_fast_decide<
    T, detail::enable_if_t<
           detail::is_same_v<
               decltype(detail::declval<const T&>().fast_path_applies(detail::declval<const drive_state&>())), bool> &&
           detail::is_same_v<decltype(detail::declval<const T&>().decide_fast(detail::declval<const drive_state&>())),
                             extend_decision>>> : detail::true_type {};
}  // namespace detail

/// T can be an extend_policy's Trigger (see the header comment).
template <class T>
inline constexpr bool is_extend_trigger_v = detail::has_limit<T>::value&& detail::has_improbable<T>::value;
/// T can be an extend_policy's Growth.
template <class T>
inline constexpr bool is_extend_growth_v = detail::has_chunk<T>::value&& detail::has_initial_size<T>::value;
/// T can be an extend_policy's Limits.
template <class T>
inline constexpr bool is_extend_limits_v = detail::has_limits_api<T>::value;
/// T, playing all three roles, offers a fast path: fast_path_applies(const drive_state&) and
/// decide_fast(const drive_state&) (see the header comment).
template <class T>
inline constexpr bool has_fast_decide_v = detail::has_fast_decide<T>::value;

// ============================================================================================================
// Batch decisions

/// Flags of one batch decision (extend_batch_output::flags): decide()'s needs_extend, improbable_allocation and
/// can_extend.
enum extend_flags : std::uint8_t {
    extend_flag_needs_extend = 1,
    extend_flag_improbable = 2,
    extend_flag_can_extend = 4,
};

/// `size()` values of T read in place, contiguous (std::span<const T>'s role, in C++17): from a pointer and a count, an
/// array, or a container with data() and size() (std::vector<T>, std::array<T, N>).
template <class T>
class batch_view {
public:
    constexpr batch_view() noexcept = default;
    constexpr batch_view(const T* data, std::size_t size) noexcept : data_(data), size_(size) {}
    template <std::size_t N>
    // NOLINTNEXTLINE(google-explicit-constructor)
    constexpr batch_view(const T (&a)[N]) noexcept : data_(a), size_(N) {}
    template <class C, class = detail::enable_if_t<
                           detail::is_convertible_v<decltype(detail::declval<const C&>().data()), const T*>>>
    // NOLINTNEXTLINE(google-explicit-constructor)
    constexpr batch_view(const C& c) noexcept : data_(c.data()), size_(static_cast<std::size_t>(c.size())) {}

    PROVPOL_NODISCARD constexpr const T* data() const noexcept { return data_; }
    PROVPOL_NODISCARD constexpr std::size_t size() const noexcept { return size_; }
    PROVPOL_NODISCARD constexpr bool empty() const noexcept { return size_ == 0; }
    constexpr const T& operator[](std::size_t i) const noexcept { return data_[i]; }

private:
    const T* data_ = nullptr;
    std::size_t size_ = 0;
};

/// `size()` values of T written in place, contiguous (std::span<T>'s role): from a pointer and a count, an array, or a
/// container with data() and size().
template <class T>
class batch_span {
public:
    constexpr batch_span() noexcept = default;
    constexpr batch_span(T* data, std::size_t size) noexcept : data_(data), size_(size) {}
    template <std::size_t N>
    // NOLINTNEXTLINE(google-explicit-constructor)
    constexpr batch_span(T (&a)[N]) noexcept : data_(a), size_(N) {}
    template <class C,
              class = detail::enable_if_t<detail::is_convertible_v<decltype(detail::declval<C&>().data()), T*>>>
    // NOLINTNEXTLINE(google-explicit-constructor)
    constexpr batch_span(C& c) noexcept : data_(c.data()), size_(static_cast<std::size_t>(c.size())) {}

    PROVPOL_NODISCARD constexpr T* data() const noexcept { return data_; }
    PROVPOL_NODISCARD constexpr std::size_t size() const noexcept { return size_; }
    PROVPOL_NODISCARD constexpr bool empty() const noexcept { return size_ == 0; }
    constexpr T& operator[](std::size_t i) const noexcept { return data_[i]; }

private:
    T* data_ = nullptr;
    std::size_t size_ = 0;
};

/// extend_batch_input's views of sizes, each named for its role as drive_state's are, so that no two trade places:
/// `extend_batch_input{batch_capacity(cap), batch_physical(phys), batch_allocation(alloc)}`.
struct batch_capacity : batch_view<bytes> {
    constexpr batch_capacity() noexcept = default;
    constexpr explicit batch_capacity(batch_view<bytes> v) noexcept : batch_view<bytes>(v) {}
};
/// The LVs' sizes now (see batch_capacity).
struct batch_physical : batch_view<bytes> {
    constexpr batch_physical() noexcept = default;
    constexpr explicit batch_physical(batch_view<bytes> v) noexcept : batch_view<bytes>(v) {}
};
/// The highest offsets written (see batch_capacity).
struct batch_allocation : batch_view<bytes> {
    constexpr batch_allocation() noexcept = default;
    constexpr explicit batch_allocation(batch_view<bytes> v) noexcept : batch_view<bytes>(v) {}
};

/// The drives of a batch as structure of arrays: element i of each view is drive i's field of drive_state. capacity,
/// physical and allocation hold one element per drive, each given by role (batch_capacity); replicating,
/// threshold_exceeded and write_rate hold one per drive too, or none (then every drive has drive_state's default: not
/// replicating, no event, rate unknown).
struct extend_batch_input {
    batch_capacity capacity;
    batch_physical physical;
    batch_allocation allocation;
    batch_view<bool> replicating{};
    batch_view<bool> threshold_exceeded{};
    batch_view<rate> write_rate{};

    /// The number of drives: capacity's size.
    PROVPOL_NODISCARD constexpr std::size_t size() const noexcept { return capacity.size(); }
    /// Drive i as decide() takes it.
    PROVPOL_NODISCARD constexpr drive_state drive(std::size_t i) const noexcept {
        drive_state d{drive_capacity(capacity[i]), drive_physical(physical[i]), drive_allocation(allocation[i])};
        d.replicating = !replicating.empty() && replicating[i];
        d.threshold_exceeded = !threshold_exceeded.empty() && threshold_exceeded[i];
        if (!write_rate.empty()) d.write_rate = write_rate[i];
        return d;
    }
};

/// extend_batch_output's spans of sizes, named for their role as the input's are, so that the size to request and the
/// threshold to register cannot trade places: `extend_batch_output{action, batch_next_size(next),
/// batch_block_threshold(threshold), flags}`.
struct batch_next_size : batch_span<bytes> {
    constexpr batch_next_size() noexcept = default;
    constexpr explicit batch_next_size(batch_span<bytes> s) noexcept : batch_span<bytes>(s) {}
};
/// The block thresholds to register (see batch_next_size).
struct batch_block_threshold : batch_span<bytes> {
    constexpr batch_block_threshold() noexcept = default;
    constexpr explicit batch_block_threshold(batch_span<bytes> s) noexcept : batch_span<bytes>(s) {}
};

/// What decide() tells the agent to act on, one element per drive of the input: the action, the size to request, the
/// block threshold to register now, and (when given) the three flags. Every view but flags holds at least as many
/// elements as the input has drives; flags may be empty (not written).
struct extend_batch_output {
    batch_span<extend_action> action;
    batch_next_size next_size;
    batch_block_threshold block_threshold;
    batch_span<std::uint8_t> flags{};
};

namespace detail {
struct decide_one_archetype {
    void operator()(std::size_t) const noexcept {}
};
template <class T, class = void>
struct has_batch_prefix : detail::false_type {};
template <class T>
struct has_batch_prefix<
    T,
    detail::enable_if_t<detail::is_same_v<decltype(detail::declval<const T&>().decide_batch_prefix(
                                              detail::declval<const extend_batch_input&>(),
                                              detail::declval<const extend_batch_output&>(), decide_one_archetype{})),
                                          std::size_t>>> : detail::true_type {};
}  // namespace detail

/// T, playing all three roles, offers a batch kernel (see the header comment).
template <class T>
inline constexpr bool has_batch_prefix_v = detail::has_batch_prefix<T>::value;

// ============================================================================================================
// The policy template

namespace detail {

// The steps, each once: a type that plays several roles is one object.
template <class T, class G, class L, bool Shared = detail::is_same_v<T, G>&& detail::is_same_v<G, L>>
struct extend_steps {
    constexpr extend_steps(T t, G g, L l) noexcept : trigger(t), growth(g), limits(l) {}
    PROVPOL_NODISCARD constexpr const T& get_trigger() const noexcept { return trigger; }
    PROVPOL_NODISCARD constexpr const G& get_growth() const noexcept { return growth; }
    PROVPOL_NODISCARD constexpr const L& get_limits() const noexcept { return limits; }
    T trigger;
    G growth;
    L limits;
};
template <class S>
struct extend_steps<S, S, S, true> {
    constexpr explicit extend_steps(S s) noexcept : steps(s) {}
    PROVPOL_NODISCARD constexpr const S& get_trigger() const noexcept { return steps; }
    PROVPOL_NODISCARD constexpr const S& get_growth() const noexcept { return steps; }
    PROVPOL_NODISCARD constexpr const S& get_limits() const noexcept { return steps; }
    S steps;
};

}  // namespace detail

/// A thin-volume extend policy composed of a trigger (when), a growth (how much) and limits (the storage's
/// rounding and maximum). A small regular value: copy it freely; deciding is a pure function.
template <class Trigger, class Growth, class Limits>
class extend_policy {
    static_assert(
        detail::has_limit<Trigger>::value,
        "extend_policy: Trigger must provide constexpr bytes limit(const drive_state&, bytes chunk) const noexcept");
    static_assert(detail::has_improbable<Trigger>::value,
                  "extend_policy: Trigger must provide constexpr bool improbable(const drive_state&, bytes requested) "
                  "const noexcept");
    static_assert(detail::has_chunk<Growth>::value,
                  "extend_policy: Growth must provide constexpr bytes chunk(const drive_state&) const noexcept");
    static_assert(detail::has_initial_size<Growth>::value,
                  "extend_policy: Growth must provide constexpr bytes initial_size(bytes capacity) const noexcept");
    static_assert(
        detail::has_limits_api<Limits>::value,
        "extend_policy: Limits must provide max_size, max_size_storage, request and lv_size (see extend/policy.hpp)");

    static constexpr bool shared = detail::is_same_v<Trigger, Growth> && detail::is_same_v<Growth, Limits>;

public:
    using trigger_type = Trigger;
    using growth_type = Growth;
    using limits_type = Limits;

    /// A policy of three step types.
    template <bool S = shared, detail::enable_if_t<!S, int> = 0>
    constexpr extend_policy(Trigger trigger, Growth growth, Limits limits) noexcept : steps_(trigger, growth, limits) {}
    /// A policy of one step type that plays all three roles (stored once).
    template <bool S = shared, detail::enable_if_t<S, int> = 0>
    constexpr explicit extend_policy(Trigger steps) noexcept : steps_(steps) {}

    PROVPOL_NODISCARD constexpr const Trigger& trigger() const noexcept { return steps_.get_trigger(); }
    PROVPOL_NODISCARD constexpr const Growth& growth() const noexcept { return steps_.get_growth(); }
    PROVPOL_NODISCARD constexpr const Limits& limits() const noexcept { return steps_.get_limits(); }

    /// Every decision for one drive. Total: any uint64_t sizes, allocation above physical, capacity 0.
    /// Always inlined: a fast path is a few dozen instructions, and a call around it (the registers it saves, the
    /// decision it stores) costs a third more (g++ 12 leaves LVM's out of line otherwise; bench/README.md).
    PROVPOL_NODISCARD PROVPOL_ALWAYS_INLINE constexpr extend_decision decide(const drive_state& d) const noexcept {
        if constexpr (shared && has_fast_decide_v<Trigger>) {
            if (PROVPOL_LIKELY(trigger().fast_path_applies(d))) return trigger().decide_fast(d);
            return decide_cold(d);
        } else {
            return decide_steps(d);
        }
    }

    /// The LV size of a new empty volume: the growth's initial size, rounded by the storage.
    PROVPOL_NODISCARD constexpr bytes initial_size(bytes capacity) const noexcept {
        return limits().lv_size(growth().initial_size(capacity));
    }

    /// The block threshold for a volume of `physical` bytes (register it after every extend, from the real
    /// LV size the storage reports, not the requested size).
    PROVPOL_NODISCARD constexpr bytes threshold_for(const drive_state& d) const noexcept {
        return block_threshold(d.physical, trigger().limit(d, growth().chunk(d)));
    }

    /// The decision as the steps define it, with saturating arithmetic: what every fast path must equal.
    PROVPOL_NODISCARD constexpr extend_decision decide_steps(const drive_state& d) const noexcept {
        const Trigger& trigger_ = trigger();
        const Growth& growth_ = growth();
        const Limits& limits_ = limits();
        extend_decision out{};
        out.chunk = growth_.chunk(d);
        out.limit = trigger_.limit(d, out.chunk);
        out.block_threshold = block_threshold(d.physical, out.limit);
        // physical - allocation < limit, with allocation above physical meaning no free space at all.
        out.needs_extend = d.allocation > d.physical || d.physical.count() - d.allocation.count() < out.limit.count();
        out.max_size = limits_.max_size(d.capacity);
        out.can_extend = d.physical < out.max_size;
        // Never below physical: at the maximum there is nothing to request. VDSM's VolumeMonitor (thinp.py)
        // stops at _can_extend_drive() there, before extend_volume(); getNextVolumeSize()'s min() alone would
        // give a size below an LV rounded up past the maximum to the extent.
        // The improbable-allocation check is VDSM's (thinp.py, _drive_needs_extend; drivemonitor.py in 4.50.0):
        // allocation against getNextVolumeSize() itself, min(request, maximum), before that floor.
        const bytes requested = min(limits_.request(d.physical, out.chunk), out.max_size);
        out.next_size = max(requested, d.physical);
        out.improbable_allocation = trigger_.improbable(d, requested);
        out.lv_size_after_extend = limits_.lv_size(out.next_size);
        out.next_block_threshold = block_threshold(out.lv_size_after_extend, out.limit);
        out.max_size_storage = limits_.max_size_storage(d.capacity);
        out.initial_size = initial_size(d.capacity);
        out.action =
            detail::extend_action_of(out.can_extend, d.threshold_exceeded, out.improbable_allocation, out.needs_extend);
        return out;
    }

private:
    // The saturating path of a policy with a fast path, out of line so that decide() inlines.
    PROVPOL_NODISCARD PROVPOL_COLD constexpr extend_decision decide_cold(const drive_state& d) const noexcept {
        return decide_steps(d);
    }

    detail::extend_steps<Trigger, Growth, Limits> steps_;
};

namespace detail {

// True in a constant expression: the batch kernels (not constexpr: they keep an uninitialised scratch array)
// are skipped there. Without the builtin every drive goes through decide(), which is always right.
constexpr bool constant_evaluated() noexcept {
#if defined(__GNUC__) || defined(__clang__) || (defined(_MSC_VER) && _MSC_VER >= 1925)
    return __builtin_is_constant_evaluated();
#else
    return true;
#endif
}

// One drive of a batch, through decide().
template <class Policy>
constexpr void decide_batch_one(const Policy& policy, const extend_batch_input& in, const extend_batch_output& out,
                                std::size_t i) noexcept {
    const extend_decision r = policy.decide(in.drive(i));
    out.action[i] = r.action;
    out.next_size[i] = r.next_size;
    out.block_threshold[i] = r.block_threshold;
    if (!out.flags.empty())
        out.flags[i] = static_cast<std::uint8_t>((r.needs_extend ? extend_flag_needs_extend : 0) |
                                                 (r.improbable_allocation ? extend_flag_improbable : 0) |
                                                 (r.can_extend ? extend_flag_can_extend : 0));
}

// The batch's views against its drive count: an error naming the first that does not fit.
// (A template so that it is compiled with decide_batch, where a batch is decided.)
template <class Deferred = void>
constexpr result<void> check_batch(const extend_batch_input& in, const extend_batch_output& out) noexcept {
    const std::size_t n = in.size();
    const struct {
        static_text name;
        std::size_t size;
        bool optional;
        bool output;
    } views[] = {{"physical", in.physical.size(), false, false},
                 {"allocation", in.allocation.size(), false, false},
                 {"replicating", in.replicating.size(), true, false},
                 {"threshold_exceeded", in.threshold_exceeded.size(), true, false},
                 {"write_rate", in.write_rate.size(), true, false},
                 {"action", out.action.size(), false, true},
                 {"next_size", out.next_size.size(), false, true},
                 {"block_threshold", out.block_threshold.size(), false, true},
                 {"flags", out.flags.size(), true, true}};
    for (const auto& v : views) {
        if (v.optional && v.size == 0) continue;
        if (v.output ? v.size < n : v.size != n)
            return unexpected(error::conflict(
                v.name.c_str(), error_value::of(v.size),
                v.output ? static_text("must hold at least the drives of") : static_text("must hold the drives of"),
                "capacity", error_value::of(n)));
    }
    return {};
}

}  // namespace detail

/// Decides every drive of a batch: element i of each output is what decide() gives drive i (the action, the next size,
/// the block threshold and the flags), replication and threshold events included. Refused, with nothing written, when
/// a view does not hold one element per drive (an output at least one; an optional input none or one): the error names
/// the view. The views must not overlap. A policy whose steps offer a batch kernel (decide_batch_prefix: VDSM's, in
/// vectorised blocks) decides a prefix with it; the rest, and every drive in a constant expression, are decided one
/// by one. One definition for every translation unit: no body depends on compiler flags.
template <class Policy>
PROVPOL_NODISCARD constexpr result<void> decide_batch(const Policy& policy, const extend_batch_input& in,
                                                      const extend_batch_output& out) noexcept {
    if (auto ok = detail::check_batch(in, out); !ok) return ok;
    std::size_t i = 0;
    using steps = typename Policy::trigger_type;
    if constexpr (detail::is_same_v<steps, typename Policy::growth_type> &&
                  detail::is_same_v<steps, typename Policy::limits_type> && has_batch_prefix_v<steps>) {
        if (!detail::constant_evaluated())
            i = policy.trigger().decide_batch_prefix(
                in, out, [&](std::size_t j) noexcept { detail::decide_batch_one(policy, in, out, j); });
    }
    for (; i < in.size(); ++i) detail::decide_batch_one(policy, in, out, i);
    return {};
}

}  // namespace provpol

#endif  // PROVPOL_EXTEND_POLICY_HPP
