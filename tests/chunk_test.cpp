// Tests of provpol/chunk.hpp: the presets against their tools' rules, alignment on 512e, 4Kn, RAID and unknown
// devices, contradicting limits, and seeded sweeps of the invariants every decision keeps.
#include <provpol/chunk.hpp>
#include <provpol/random.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <limits>
#include <string>
#include <vector>

using namespace provpol;
using namespace provpol::literals;

namespace {

constexpr std::uint64_t max64 = std::numeric_limits<std::uint64_t>::max();

// This machine's /dev/vda (virtio, 512e): /sys/dev/block/254:0/queue reads logical 512, physical 4096,
// minimum_io 4096, optimal_io 0, max_sectors_kb 4096; statx on a file of its ext4 gives dio 512/512, st_blksize 4096.
constexpr device_limits vda_512e{512_B, 4_KiB, 4_KiB, 0_B, 4_MiB, 512_B, 512_B, 4_KiB};
// A 4Kn disk: everything 4 KiB; max_sectors_kb 1280 (the kernel's default BLK_DEF_MAX_SECTORS_CAP on recent kernels).
constexpr device_limits disk_4kn{4_KiB, 4_KiB, 4_KiB, 0_B, 1280_KiB, 4_KiB, 4_KiB, 4_KiB};
// An md RAID 5 with three data disks and 64 KiB chunks: minimum_io = chunk, optimal_io = stripe width.
constexpr device_limits raid5{512_B, 4_KiB, 64_KiB, 192_KiB, 1_MiB, 512_B, 512_B, 4_KiB};
constexpr device_limits unknown{};

std::string message(const error& e) { return std::string(e.message().view()); }

template <class R>
std::string error_of(const R& r) {
    return r ? std::string("ok") : message(r.error());
}

constexpr chunk_policy policy(const device_limits& l, io_mode m, bytes def) {
    return chunk_policy::make(l, m, fixed_default{def}).value();
}

}  // namespace

// --- the presets reproduce their tools on a device that imposes nothing -------------------------------------------

static_assert(make_chunk_policy(chunk_presets::xapi_redo_log_2010(), unknown)->decide() ==
              chunk_decision{16_KiB, chunk_step::default_size});
static_assert(make_chunk_policy(chunk_presets::xapi_redo_log(), unknown)->decide() ==
              chunk_decision{64_KiB, chunk_step::default_size});
static_assert(make_chunk_policy(chunk_presets::coreutils_cp(), unknown)->decide() ==
              chunk_decision{256_KiB, chunk_step::default_size});
static_assert(make_chunk_policy(chunk_presets::coreutils_cp_2014(), unknown)->decide() ==
              chunk_decision{128_KiB, chunk_step::default_size});
static_assert(make_chunk_policy(chunk_presets::qemu_img_convert(), unknown)->decide() ==
              chunk_decision{2_MiB, chunk_step::default_size});
static_assert(make_chunk_policy(chunk_presets::ovirt_imageio(), unknown)->decide() ==
              chunk_decision{8_MiB, chunk_step::default_size});
static_assert(make_chunk_policy(chunk_presets::coreutils_cp_2009(), unknown)->decide() ==
              chunk_decision{32_KiB, chunk_step::default_size});
static_assert(make_chunk_policy(chunk_presets::coreutils_cp_2012(), unknown)->decide() ==
              chunk_decision{64_KiB, chunk_step::default_size});
static_assert(make_chunk_policy(chunk_presets::coreutils_cp_2023(), unknown)->decide() ==
              chunk_decision{128_KiB, chunk_step::default_size});
static_assert(make_chunk_policy(chunk_presets::coreutils_cp_2024(), unknown)->decide() ==
              chunk_decision{256_KiB, chunk_step::default_size});
static_assert(make_chunk_policy(chunk_presets::ovirt_imageio_client(), unknown)->decide() ==
              chunk_decision{4_MiB, chunk_step::default_size});
static_assert(make_chunk_policy(chunk_presets::rsync(1_GiB), unknown)->decide() ==
              chunk_decision{32_KiB, chunk_step::default_size});
static_assert(chunk_presets::ovirt_imageio_client().mode == io_mode::direct);
static_assert(chunk_presets::xapi_redo_log().mode == io_mode::buffered_dsync);
static_assert(chunk_presets::ovirt_imageio().mode == io_mode::direct);
static_assert(chunk_presets::qemu_img_convert().mode == io_mode::buffered);

// --- the DefaultStep contract -------------------------------------------------------------------------------------

namespace {
struct no_default_size {};
struct throwing_default {
    bytes default_size(const device_limits&) const { return 4_KiB; }
};
struct wrong_type_default {
    std::uint64_t default_size(const device_limits&) const noexcept { return 4096; }
};
struct not_trivially_copyable_default {
    not_trivially_copyable_default() = default;
    not_trivially_copyable_default(const not_trivially_copyable_default&) {}
    bytes default_size(const device_limits&) const noexcept { return 4_KiB; }
};
// A user's step: the device's optimal I/O size when it reports one, else 1 MiB.
struct optimal_or_1mib {
    constexpr bytes default_size(const device_limits& l) const noexcept {
        return l.optimal_io_size.count() != 0 ? l.optimal_io_size : 1_MiB;
    }
};
}  // namespace

static_assert(is_chunk_default_step_v<fixed_default>);
static_assert(is_chunk_default_step_v<coreutils_io_blksize>);
static_assert(is_chunk_default_step_v<coreutils_io_blksize_max>);
static_assert(is_chunk_default_step_v<rsync_block_length>);
static_assert(is_chunk_default_step_v<optimal_or_1mib>);
static_assert(!is_chunk_default_step_v<no_default_size>);
static_assert(!is_chunk_default_step_v<throwing_default>);
static_assert(!is_chunk_default_step_v<wrong_type_default>);
static_assert(!is_chunk_default_step_v<not_trivially_copyable_default>);
static_assert(basic_chunk_policy<optimal_or_1mib>::make(raid5, io_mode::direct, {})->decide().size == 192_KiB);
static_assert(basic_chunk_policy<optimal_or_1mib>::make(vda_512e, io_mode::direct, {})->decide().size == 1_MiB);

// --- modes ----------------------------------------------------------------------------------------------------------

static_assert(is_direct(io_mode::direct) && is_direct(io_mode::direct_dsync));
static_assert(!is_direct(io_mode::buffered) && !is_direct(io_mode::buffered_dsync));
static_assert(is_dsync(io_mode::direct_dsync) && is_dsync(io_mode::buffered_dsync));
static_assert(!is_dsync(io_mode::direct) && !is_dsync(io_mode::buffered));

TEST_CASE("io modes: names round-trip, unknown names are rejected with the list") {
    for (io_mode m : {io_mode::buffered, io_mode::buffered_dsync, io_mode::direct, io_mode::direct_dsync})
        CHECK(parse_io_mode(to_text(m)).value() == m);
    CHECK(std::string(to_text(io_mode::direct_dsync)) == "direct-dsync");
    CHECK(error_of(parse_io_mode("O_DIRECT", "--mode")) ==
          "--mode: unknown value 'O_DIRECT': expected direct, direct-dsync, buffered or buffered-dsync");
    CHECK_FALSE(parse_io_mode("").has_value());
}

// --- coreutils' io_blksize, computed by hand from src/ioblksize.h --------------------------------------------------

TEST_CASE("coreutils_io_blksize follows io_blksize() for every st_blksize") {
    const coreutils_io_blksize cp{256_KiB, true};
    const coreutils_io_blksize cp_any_file{256_KiB, false};
    const auto st = [](std::uint64_t blksize) {
        device_limits l;
        l.stat_block_size = bytes(blksize);
        return l;
    };
    // st_blksize 4096 (ext4, tmpfs): 4096 + 262143 - 262143 % 4096 (= 4095) = 262144.
    CHECK(cp.default_size(st(4096)) == 256_KiB);
    // Unknown (coreutils: st_blksize <= 0): IO_BUFSIZE.
    CHECK(cp.default_size(st(0)) == 256_KiB);
    // 1 MiB (NFS with rsize=wsize=1 MiB): already >= IO_BUFSIZE, 262143 % 1048576 = 262143, += 0.
    CHECK(cp.default_size(st(1048576)) == 1_MiB);
    // 3000: the smallest multiple >= 262144 is 88 * 3000 = 264000; a regular file gets the next power of two.
    CHECK(cp_any_file.default_size(st(3000)) == bytes(264000));
    CHECK(cp.default_size(st(3000)) == 512_KiB);
    // 393216 (3 * 128 KiB, above IO_BUFSIZE): kept, then 524288 for a regular file.
    CHECK(cp_any_file.default_size(st(393216)) == bytes(393216));
    CHECK(cp.default_size(st(393216)) == 512_KiB);
    // 2^40: capped at gnulib's SYS_BUFSIZE_MAX, INT_MAX >> 20 << 20 = 2146435072.
    CHECK(cp.default_size(st(1ULL << 40)) == bytes(2146435072));
    // gnulib's STP_BLKSIZE takes st_blksize only in (0, SIZE_MAX / 8 + 1] (2^61) and DEV_BSIZE (512) otherwise;
    // 512 rounds up to IO_BUFSIZE. 2^61 itself is kept (then capped); 2^61 + 4096 and 2^64 - 1 (-1 as a blksize_t)
    // are not.
    CHECK(cp.default_size(st(1ULL << 61)) == bytes(2146435072));
    CHECK(cp.default_size(st((1ULL << 61) + 4096)) == 256_KiB);
    CHECK(cp.default_size(st(max64)) == 256_KiB);
    // The 2014-2024 constant: 128 KiB. Debian 12's coreutils 9.1 `cat` (same io_blksize()) was traced with strace
    // reading and writing 131072 bytes at a time from an ext4 file with st_blksize 4096.
    CHECK(coreutils_io_blksize{128_KiB, true}.default_size(st(4096)) == bytes(131072));
    CHECK(coreutils_io_blksize{0_B, true}.default_size(st(4096)) == 0_B);  // rejected by make()
}

// --- every coreutils release's io_blksize(), computed by hand from src/ioblksize.h (src/system.h in 7.2) -----------

namespace {
// Each era's rule on a device that reports only st_blksize: the preset's default size.
template <class Preset>
std::uint64_t io_blksize_of(const Preset& preset, std::uint64_t st_blksize) {
    device_limits l;
    l.stat_block_size = bytes(st_blksize);
    return preset.default_step.default_size(l).count();
}
}  // namespace

TEST_CASE("coreutils' releases: each preset is its release's io_blksize()") {
    // st_blksize values: unknown, 4096 (ext4), 65536, 3000 (not a divisor of any IO_BUFSIZE), 393216 (3 x 128 KiB),
    // 1 MiB (NFS), 2 GiB (XFS may report it), 2^61 (the largest STP_BLKSIZE keeps), 2^61 + 4096 (beyond: DEV_BSIZE).
    const std::uint64_t st[] = {0, 4096, 65536, 3000, 393216, 1 << 20, 1ULL << 31, 1ULL << 61, (1ULL << 61) + 4096};
    // 7.2 to 9.1: MAX (IO_BUFSIZE, STP_BLKSIZE (st)); 512 for the unknown and the impossible, so IO_BUFSIZE.
    const auto max_rule = [](std::uint64_t io) {
        return std::vector<std::uint64_t>{
            io, io, std::max<std::uint64_t>(io, 65536), io, 393216, 1 << 20, 1ULL << 31, 1ULL << 61, io};
    };
    // 9.2 and later: the smallest multiple of st_blksize >= IO_BUFSIZE, the next power of two when it is not one:
    // 3000 x 44 = 132000 -> 262144 and 3000 x 88 = 264000 -> 524288; 393216 -> 524288 either way; then the cap.
    const std::vector<std::uint64_t> r2023 = {131072,  131072,     131072,     262144, 524288,
                                              1 << 20, 1ULL << 31, 1ULL << 61, 131072};
    const std::vector<std::uint64_t> r2024 = {262144,  262144,     262144,     524288, 524288,
                                              1 << 20, 1ULL << 31, 1ULL << 61, 262144};
    // 9.8: the same, at most SYS_BUFSIZE_MAX = 2146435072.
    const std::vector<std::uint64_t> r98 = {262144,  262144,     262144,     524288, 524288,
                                            1 << 20, 2146435072, 2146435072, 262144};
    const struct {
        std::vector<std::uint64_t> want;
        std::uint64_t (*got)(std::uint64_t);
    } eras[] = {
        {max_rule(32768), [](std::uint64_t v) { return io_blksize_of(chunk_presets::coreutils_cp_2009(), v); }},
        {max_rule(65536), [](std::uint64_t v) { return io_blksize_of(chunk_presets::coreutils_cp_2012(), v); }},
        {max_rule(131072), [](std::uint64_t v) { return io_blksize_of(chunk_presets::coreutils_cp_2014(), v); }},
        {r2023, [](std::uint64_t v) { return io_blksize_of(chunk_presets::coreutils_cp_2023(), v); }},
        {r2024, [](std::uint64_t v) { return io_blksize_of(chunk_presets::coreutils_cp_2024(), v); }},
        {r98, [](std::uint64_t v) { return io_blksize_of(chunk_presets::coreutils_cp(), v); }},
    };
    for (std::size_t e = 0; e < std::size(eras); ++e)
        for (std::size_t i = 0; i < std::size(st); ++i) {
            CAPTURE(e);
            CAPTURE(st[i]);
            CHECK(eras[e].got(st[i]) == eras[e].want[i]);
        }
    // The IO_BUFSIZE of each release, as cat and cp use it on ext4 (st_blksize 4096), through the whole policy.
    device_limits ext4;
    ext4.stat_block_size = 4_KiB;
    CHECK(make_chunk_policy(chunk_presets::coreutils_cp_2009(), ext4)->decide().size == 32_KiB);
    CHECK(make_chunk_policy(chunk_presets::coreutils_cp_2012(), ext4)->decide().size == 64_KiB);
    CHECK(make_chunk_policy(chunk_presets::coreutils_cp_2014(), ext4)->decide().size == 128_KiB);
    CHECK(make_chunk_policy(chunk_presets::coreutils_cp_2023(), ext4)->decide().size == 128_KiB);
    CHECK(make_chunk_policy(chunk_presets::coreutils_cp_2024(), ext4)->decide().size == 256_KiB);
    CHECK(make_chunk_policy(chunk_presets::coreutils_cp(), ext4)->decide().size == 256_KiB);
}

// --- rsync's block length (generator.c sum_sizes_sqroot() at RsyncProject/rsync 7c20b077) --------------------------

namespace {

// rsync's block length by its definition, found by search rather than by a square root: 700 up to 490000 bytes;
// else c = the largest power of two with c * c <= len; max when c >= max; else the largest multiple of 8 whose
// square is at most len (bisection over multiples of 8 below 2c), at least 700.
std::uint64_t rsync_by_search(std::uint64_t len, std::uint64_t max) {
    if (len <= 490000) return 700;
    std::uint64_t c = 1;
    while (c < (std::uint64_t{1} << 31) && (2 * c) * (2 * c) <= len) c *= 2;
    if (c >= max) return max;
    std::uint64_t lo = 0, hi = (2 * c) / 8;  // (8 lo)^2 <= len < (8 hi)^2
    while (hi - lo > 1) {
        const std::uint64_t mid = (lo + hi) / 2;
        if ((8 * mid) * (8 * mid) <= len)
            lo = mid;
        else
            hi = mid;
    }
    return std::max<std::uint64_t>(8 * lo, 700);
}

std::uint64_t rsync_length(std::uint64_t len, bool old_protocol = false) {
    return rsync_block_length{bytes(len), old_protocol}.default_size({}).count();
}

}  // namespace

TEST_CASE("rsync: the block length of sum_sizes_sqroot() on hand-computed lengths") {
    CHECK(rsync_length(0) == 700);
    CHECK(rsync_length(490000) == 700);               // 700 * 700: still BLOCK_SIZE
    CHECK(rsync_length(490001) == 700);               // sqrt 700.0007, 696 as a multiple of 8, raised to 700
    CHECK(rsync_length(704 * 704 - 1) == 700);        // sqrt 703.99: 696 -> 700
    CHECK(rsync_length(704 * 704) == 704);            // the first length above 700
    CHECK(rsync_length(1000000) == 1000);             // 1 MB: 1000, a multiple of 8
    CHECK(rsync_length(1ULL << 30) == 32768);         // 1 GiB
    CHECK(rsync_length(1000000000) == 31616);         // 1 GB: sqrt 31622.78, down to a multiple of 8
    CHECK(rsync_length((1ULL << 34) - 1) == 131064);  // sqrt 131071.99: 131064
    CHECK(rsync_length(1ULL << 34) == 131072);        // c reaches MAX_BLOCK_SIZE (2^17)
    CHECK(rsync_length(1ULL << 40) == 131072);
    CHECK(rsync_length(max64) == 131072);
    // Before protocol 30 the bound is OLD_MAX_BLOCK_SIZE, 2^29.
    CHECK(rsync_length(1ULL << 34, true) == 131072);
    CHECK(rsync_length(1ULL << 40, true) == 1048576);
    CHECK(rsync_length((1ULL << 58) - 1, true) == (1ULL << 29) - 8);
    CHECK(rsync_length(1ULL << 58, true) == 1ULL << 29);
    CHECK(rsync_length(max64, true) == 1ULL << 29);
}

TEST_CASE("rsync: the block length equals its definition for every length to 4 MB and around every square") {
    for (std::uint64_t len = 0; len <= 4000000; ++len)
        if (rsync_length(len) != rsync_by_search(len, 131072)) FAIL("len " << len);
    // Around every square a multiple of 8 apart, and every power of two, in both protocols.
    for (std::uint64_t r = 696; r < (std::uint64_t{1} << 18); r += 8)
        for (std::uint64_t len : {r * r - 1, r * r, r * r + 1}) {
            CAPTURE(len);
            CHECK(rsync_length(len) == rsync_by_search(len, 131072));
            CHECK(rsync_length(len, true) == rsync_by_search(len, 1ULL << 29));
        }
    detail::xoshiro256 rng(30);
    for (int i = 0; i < 200000; ++i) {
        const std::uint64_t len = rng.next() >> rng.below(64);
        CAPTURE(len);
        CHECK(rsync_length(len) == rsync_by_search(len, 131072));
        CHECK(rsync_length(len, true) == rsync_by_search(len, 1ULL << 29));
    }
}

TEST_CASE("rsync's preset: its length unchanged on a device that imposes nothing, the device's granularity else") {
    auto preset = chunk_presets::rsync(bytes(1000000000));
    CHECK(preset.mode == io_mode::buffered);
    CHECK(preset.floor == 1_B);
    const auto free_device = make_chunk_policy(preset, unknown);
    REQUIRE(free_device.has_value());
    CHECK(free_device->decide() == chunk_decision{bytes(31616), chunk_step::default_size});
    CHECK(make_chunk_policy(chunk_presets::rsync(), unknown)->decide() ==
          chunk_decision{700_B, chunk_step::default_size});
    // rsync 3 talks protocol 30 or later: 128 KiB for a 64 GiB file (2^29 before protocol 30 would give 256 KiB).
    CHECK(make_chunk_policy(chunk_presets::rsync(64_GiB), unknown)->decide().size == 128_KiB);
    CHECK(rsync_length(std::uint64_t{64} << 30, true) == 262144);
    // rsync's --block-size=1000 as a request: taken as it is.
    CHECK(free_device->decide(bytes(1000)) == chunk_decision{bytes(1000), chunk_step::requested});
    // This machine's disk writes whole 4 KiB physical blocks: 31616 rounds up to 32768.
    CHECK(make_chunk_policy(preset, vda_512e)->decide() == chunk_decision{32_KiB, chunk_step::alignment});
}

TEST_CASE("buffered chunks are whole pages when the floor is a page or more, not when it is below") {
    // The floor says how small a write may be; below a page the caller has accepted partial-page writes.
    const auto paged = chunk_policy::make(unknown, io_mode::buffered, fixed_default{700_B}, 4_KiB).value();
    CHECK(paged.decide() == chunk_decision{4_KiB, chunk_step::floor});
    CHECK(paged.granularity() == 4_KiB);
    const auto fine = chunk_policy::make(unknown, io_mode::buffered, fixed_default{700_B}, 1_B).value();
    CHECK(fine.decide() == chunk_decision{700_B, chunk_step::default_size});
    CHECK(fine.granularity() == 1_B);
    CHECK(fine.decide(1_B) == chunk_decision{1_B, chunk_step::requested});
    // The device's own block sizes still count, and O_DIRECT with nothing known still aligns to 4 KiB.
    CHECK(chunk_policy::make(disk_4kn, io_mode::buffered, fixed_default{700_B}, 1_B)->decide().size == 4_KiB);
    CHECK(chunk_policy::make(unknown, io_mode::direct, fixed_default{700_B}, 1_B)->decide() ==
          chunk_decision{4_KiB, chunk_step::alignment});
}

// --- alignment on 512e, 4Kn, RAID and unknown devices ---------------------------------------------------------------

TEST_CASE("512e (this machine's virtio disk): aligned to the 4 KiB physical block, capped at max_sectors_kb") {
    for (io_mode m : {io_mode::direct, io_mode::buffered, io_mode::direct_dsync}) {
        CAPTURE(to_text(m));
        const chunk_policy p = policy(vda_512e, m, 64_KiB);
        CHECK(p.granularity() == 4_KiB);
        CHECK(p.decide() == chunk_decision{64_KiB, chunk_step::default_size});
        CHECK(p.decide(1_KiB) == chunk_decision{4_KiB, chunk_step::floor});
        CHECK(p.decide(6_KiB) == chunk_decision{8_KiB, chunk_step::alignment});
        CHECK(p.decide(bytes(4097)) == chunk_decision{8_KiB, chunk_step::alignment});
        CHECK(p.decide(16_KiB) == chunk_decision{16_KiB, chunk_step::requested});
        CHECK(p.decide(4_MiB) == chunk_decision{4_MiB, chunk_step::requested});
        CHECK(p.decide(8_MiB) == chunk_decision{4_MiB, chunk_step::max_transfer});
        CHECK(p.min_chunk() == 4_KiB);
        CHECK(p.max_chunk() == 4_MiB);
    }
    CHECK(policy(vda_512e, io_mode::direct, 64_KiB).buffer_alignment() == 512_B);
    CHECK(policy(vda_512e, io_mode::buffered, 64_KiB).buffer_alignment() == 1_B);
}

TEST_CASE("4Kn: every chunk a multiple of 4 KiB, the cap rounded down to it") {
    const chunk_policy p = policy(disk_4kn, io_mode::direct, 16_KiB);
    CHECK(p.granularity() == 4_KiB);
    CHECK(p.decide(bytes(12289)) == chunk_decision{16_KiB, chunk_step::alignment});
    CHECK(p.decide(2_MiB) == chunk_decision{1280_KiB, chunk_step::max_transfer});
    CHECK(p.buffer_alignment() == 4_KiB);
    // A cap that is not a multiple of the granularity is rounded down, never up.
    device_limits odd_cap = disk_4kn;
    odd_cap.max_transfer_size = bytes(1310720 + 2048);
    CHECK(policy(odd_cap, io_mode::direct, 16_KiB).decide(2_MiB) == chunk_decision{1280_KiB, chunk_step::max_transfer});
}

TEST_CASE("RAID 5: rounded up to whole stripes (optimal_io), chunks of the RAID chunk at least") {
    const chunk_policy p = policy(raid5, io_mode::direct, 16_KiB);
    CHECK(p.granularity() == 64_KiB);
    CHECK(p.alignment_unit() == 192_KiB);
    CHECK(p.decide() == chunk_decision{192_KiB, chunk_step::optimal_io});
    CHECK(p.decide(192_KiB) == chunk_decision{192_KiB, chunk_step::requested});
    CHECK(p.decide(200_KiB) == chunk_decision{384_KiB, chunk_step::optimal_io});
    // 6 stripes (1152 KiB) exceed the 1 MiB cap, which is itself a multiple of the 64 KiB granularity.
    CHECK(p.decide(1_MiB) == chunk_decision{1_MiB, chunk_step::max_transfer});
    CHECK(p.min_chunk() == 64_KiB);
}

TEST_CASE("unknown limits: buffered writes whole 4 KiB pages, O_DIRECT aligns to 4 KiB") {
    // Buffered: a chunk that is not a whole number of pages starts every other write mid-page.
    const chunk_policy buffered = policy(unknown, io_mode::buffered, 64_KiB);
    CHECK(buffered.granularity() == 4_KiB);
    CHECK(buffered.decide(bytes(6000)) == chunk_decision{8_KiB, chunk_step::alignment});
    CHECK(buffered.decide(12_KiB) == chunk_decision{12_KiB, chunk_step::requested});
    CHECK(buffered.decide(1_B) == chunk_decision{4_KiB, chunk_step::floor});
    CHECK(buffered.decide(bytes(max64)) == chunk_decision{bytes(max64 - 4095), chunk_step::alignment});
    const chunk_policy direct = policy(unknown, io_mode::direct, 64_KiB);
    CHECK(direct.granularity() == 4_KiB);
    CHECK(direct.decide(bytes(6000)) == chunk_decision{8_KiB, chunk_step::alignment});
    CHECK(direct.buffer_alignment() == 4_KiB);
    // 2^64 - 1 cannot be rounded up: it saturates to the largest multiple of 4 KiB, still aligned.
    CHECK(direct.decide(bytes(max64)) == chunk_decision{bytes(max64 - 4095), chunk_step::alignment});
    // Only statx's alignment known (a file whose device was not found in sysfs).
    device_limits statx_only;
    statx_only.dio_offset_align = 512_B;
    statx_only.dio_mem_align = 512_B;
    CHECK(policy(statx_only, io_mode::direct, 64_KiB).granularity() == 512_B);
    CHECK(policy(statx_only, io_mode::direct, 64_KiB).decide(bytes(5000)) ==
          chunk_decision{bytes(5120), chunk_step::alignment});
    CHECK(policy(statx_only, io_mode::buffered, 64_KiB).granularity() == 4_KiB);  // pages; statx does not apply
}

TEST_CASE("statx's O_DIRECT offset alignment counts only in direct modes") {
    device_limits l = vda_512e;
    l.dio_offset_align = 16_KiB;  // e.g. a filesystem with 16 KiB blocks that needs block-aligned direct I/O
    l.dio_mem_align = 4_KiB;
    CHECK(policy(l, io_mode::direct, 4_KiB).decide() == chunk_decision{16_KiB, chunk_step::alignment});
    CHECK(policy(l, io_mode::direct, 4_KiB).buffer_alignment() == 4_KiB);
    CHECK(policy(l, io_mode::buffered, 4_KiB).decide() == chunk_decision{4_KiB, chunk_step::default_size});
}

TEST_CASE("edge requests: 0 is the default, 1 the floor, 2^64 - 1 the cap") {
    const chunk_policy p = policy(vda_512e, io_mode::direct, 64_KiB);
    CHECK(p.decide(0_B) == chunk_decision{64_KiB, chunk_step::default_size});
    CHECK(p.decide(1_B) == chunk_decision{4_KiB, chunk_step::floor});
    CHECK(p.decide(bytes(max64)) == chunk_decision{4_MiB, chunk_step::max_transfer});
    CHECK(p.decide(bytes(max64 - 1)) == chunk_decision{4_MiB, chunk_step::max_transfer});
    // A default below the floor is raised by it.
    CHECK(policy(vda_512e, io_mode::buffered, 1_KiB).decide() == chunk_decision{4_KiB, chunk_step::floor});
    // A custom floor.
    CHECK(chunk_policy::make(vda_512e, io_mode::buffered, fixed_default{16_KiB}, 64_KiB)->decide() ==
          chunk_decision{64_KiB, chunk_step::floor});
}

// --- contradicting limits are errors that name them
// -------------------------------------------------------------------

TEST_CASE("contradicting limits: a clear error naming the limits and values, never a size") {
    const auto make = [](device_limits l, io_mode m = io_mode::direct) {
        return error_of(chunk_policy::make(l, m, fixed_default{16_KiB}));
    };
    device_limits l = vda_512e;
    l.logical_block_size = 4_KiB;
    l.optimal_io_size = 512_B;
    CHECK(make(l) == "optimal_io_size (512) must be at least logical_block_size (4KiB)");

    l = vda_512e;
    l.max_transfer_size = 2_KiB;
    CHECK(make(l) == "max_transfer_size (2KiB) must be at least physical_block_size (4KiB)");
    l = unknown;
    l.max_transfer_size = 2_KiB;
    CHECK(make(l, io_mode::buffered) == "max_transfer_size (2KiB) must be at least the floor (4KiB)");
    l.logical_block_size = 512_B;
    CHECK(make(l) == "max_transfer_size (2KiB) must be at least the floor (4KiB)");
    // 96 KiB RAID chunks and a 128 KiB cap: the floor rounds up to 96 KiB, the cap down to 96 KiB: fine; a cap of
    // 64 KiB is below the chunk itself.
    l = vda_512e;
    l.minimum_io_size = 96_KiB;
    l.max_transfer_size = 128_KiB;
    CHECK(make(l) == "ok");
    l.max_transfer_size = 64_KiB;
    CHECK(make(l) == "max_transfer_size (64KiB) must be at least minimum_io_size (96KiB)");
    // A cap above the floor but below the floor rounded up to a non-power-of-two granularity.
    l = unknown;
    l.logical_block_size = 512_B;
    l.physical_block_size = 512_B;
    l.minimum_io_size = 1536_B;
    l.max_transfer_size = 4_KiB;
    CHECK(make(l) ==
          "max_transfer_size (4KiB) must be at least the floor rounded up to the device's granularity (4.5KiB)");

    l = vda_512e;
    l.logical_block_size = bytes(1000);
    CHECK(make(l) == "logical_block_size must be a power of two, got 1000");
    l.logical_block_size = 256_B;
    CHECK(make(l) == "logical_block_size must be in [512, 64KiB], got 256");
    l.logical_block_size = 128_KiB;
    l.physical_block_size = 128_KiB;
    CHECK(make(l) == "logical_block_size must be in [512, 64KiB], got 128KiB");
    l = vda_512e;
    l.physical_block_size = bytes(3072);
    CHECK(make(l) == "physical_block_size must be a power of two, got 3KiB");
    l = vda_512e;
    l.logical_block_size = 4_KiB;
    l.physical_block_size = 512_B;
    CHECK(make(l) == "physical_block_size (512) must be at least logical_block_size (4KiB)");
    l = vda_512e;
    l.minimum_io_size = bytes(6144);
    CHECK(make(l) == "minimum_io_size (6KiB) must be a multiple of physical_block_size (4KiB)");
    l.minimum_io_size = 2_KiB;
    CHECK(make(l) == "minimum_io_size (2KiB) must be at least physical_block_size (4KiB)");
    l = vda_512e;
    l.optimal_io_size = bytes(4000);
    CHECK(make(l) == "optimal_io_size (4000) must be a multiple of logical_block_size (512)");
    l = raid5;
    l.optimal_io_size = 32_KiB;
    CHECK(make(l) == "optimal_io_size (32KiB) must be at least minimum_io_size (64KiB)");
    l = vda_512e;
    l.dio_offset_align = bytes(1536);
    CHECK(make(l) == "dio_offset_align must be a power of two, got 1.5KiB");
    l = vda_512e;
    l.dio_mem_align = bytes(24);
    CHECK(make(l) == "dio_mem_align must be a power of two, got 24");

    CHECK(error_of(chunk_policy::make(vda_512e, io_mode::direct, fixed_default{0_B})) ==
          "default_size must be at least 1, got 0");
    CHECK(error_of(chunk_policy::make(vda_512e, io_mode::direct, fixed_default{16_KiB}, 0_B)) ==
          "floor must be in [1, 1GiB], got 0");
    CHECK(error_of(chunk_policy::make(vda_512e, io_mode::direct, fixed_default{16_KiB}, 2_GiB)) ==
          "floor must be in [1, 1GiB], got 2GiB");
    CHECK(error_of(basic_chunk_policy<coreutils_io_blksize>::make(
              vda_512e, io_mode::direct, coreutils_io_blksize{0_B})) == "default_size must be at least 1, got 0");
    CHECK(check_device_limits(vda_512e).has_value());
    CHECK(check_device_limits(unknown).has_value());
}

TEST_CASE("non-power-of-two minimum and optimal I/O sizes have no common multiple below 2^64: an error") {
    device_limits l;
    l.logical_block_size = 512_B;
    l.minimum_io_size = bytes((max64 / 512 - 2) * 512);  // a multiple of 512, huge
    l.optimal_io_size = bytes((max64 / 512 - 1) * 512);
    CHECK(error_of(chunk_policy::make(l, io_mode::direct, fixed_default{16_KiB}))
              .find("optimal_io_size: has no common multiple") == 0);
}

// --- the presets across devices
// ----------------------------------------------------------------------------------------

namespace {
struct xapi_2010 {
    static constexpr auto preset() { return chunk_presets::xapi_redo_log_2010(); }
    static constexpr std::uint64_t tool_size = 16384;  // block_device_io.ml, 2010: ~block_size:16384
};
struct xapi_2018 {
    static constexpr auto preset() { return chunk_presets::xapi_redo_log(); }
    static constexpr std::uint64_t tool_size = 65536;  // block_device_io.ml since PR #3580: ~block_size:65536
};
struct coreutils {
    static constexpr auto preset() { return chunk_presets::coreutils_cp(); }
    static constexpr std::uint64_t tool_size = 262144;  // io_blksize() for st_blksize 4096, IO_BUFSIZE 256 KiB
};
struct coreutils_2014 {
    static constexpr auto preset() { return chunk_presets::coreutils_cp_2014(); }
    static constexpr std::uint64_t tool_size = 131072;  // coreutils 9.1's cat, traced on this machine
};
struct qemu {
    static constexpr auto preset() { return chunk_presets::qemu_img_convert(); }
    static constexpr std::uint64_t tool_size = 2097152;  // qemu-img.c: IO_BUF_SIZE (2 * MiB)
};
struct ovirt {
    static constexpr auto preset() { return chunk_presets::ovirt_imageio(); }
    static constexpr std::uint64_t tool_size = 8388608;  // config.py: backend_file.buffer_size = 8 * 1024**2
};
struct coreutils_2009 {
    static constexpr auto preset() { return chunk_presets::coreutils_cp_2009(); }
    static constexpr std::uint64_t tool_size = 32768;  // MAX (IO_BUFSIZE = 32*1024, 4096), src/system.h of 7.2
};
struct coreutils_2012 {
    static constexpr auto preset() { return chunk_presets::coreutils_cp_2012(); }
    static constexpr std::uint64_t tool_size = 65536;  // MAX (IO_BUFSIZE = 64*1024, 4096), src/ioblksize.h of 8.17
};
struct coreutils_2023 {
    static constexpr auto preset() { return chunk_presets::coreutils_cp_2023(); }
    static constexpr std::uint64_t tool_size = 131072;  // 4096 rounded up to IO_BUFSIZE = 128 * 1024 (9.2)
};
struct coreutils_2024 {
    static constexpr auto preset() { return chunk_presets::coreutils_cp_2024(); }
    static constexpr std::uint64_t tool_size = 262144;  // 4096 rounded up to IO_BUFSIZE = 256 * 1024 (9.5)
};
struct ovirt_client {
    static constexpr auto preset() { return chunk_presets::ovirt_imageio_client(); }
    static constexpr std::uint64_t tool_size = 4194304;  // client/_io.py: BUFFER_SIZE = 4 * MiB
};
}  // namespace

TEST_CASE_TEMPLATE("presets: the tool's size where the device allows it, the device's limit where not", T, xapi_2010,
                   xapi_2018, coreutils, coreutils_2014, qemu, ovirt, coreutils_2009, coreutils_2012, coreutils_2023,
                   coreutils_2024, ovirt_client) {
    constexpr auto preset = T::preset();
    CAPTURE(preset.name);
    // A device that imposes nothing but reports st_blksize 4096 (coreutils reads it).
    device_limits blk4k;
    blk4k.stat_block_size = 4_KiB;
    const auto free_device = make_chunk_policy(preset, blk4k);
    REQUIRE(free_device.has_value());
    CHECK(free_device->decide() == chunk_decision{bytes(T::tool_size), chunk_step::default_size});
    // This machine's disk: aligned sizes pass unchanged, 8 MiB is capped at max_sectors_kb (4 MiB).
    const auto vda = make_chunk_policy(preset, vda_512e);
    REQUIRE(vda.has_value());
    const chunk_decision d = vda->decide();
    if (T::tool_size <= vda_512e.max_transfer_size.count()) {
        CHECK(d == chunk_decision{bytes(T::tool_size), chunk_step::default_size});
    } else {
        CHECK(d == chunk_decision{4_MiB, chunk_step::max_transfer});
    }
    CHECK(vda->floor() == chunk_floor);
    CHECK(vda->mode() == preset.mode);
}

// --- invariants over random devices, modes and requests
// ---------------------------------------------------------------

namespace {

// A random consistent device: powers of two where Linux has them, a multiple for minimum and optimal I/O.
device_limits random_limits(detail::xoshiro256& rng) {
    device_limits l;
    const auto pow2 = [&](unsigned lo, unsigned hi) {
        return bytes(std::uint64_t{1} << (lo + rng.below(hi - lo + 1)));
    };
    if (rng.below(4) != 0) l.logical_block_size = pow2(9, 16);
    if (rng.below(4) != 0) l.physical_block_size = max(l.logical_block_size, pow2(9, 16));
    const bytes base = max(max(l.logical_block_size, l.physical_block_size), 512_B);
    if (rng.below(3) == 0) l.minimum_io_size = bytes(base.count() * (1 + rng.below(8)));
    if (rng.below(3) == 0) {
        const bytes unit = l.minimum_io_size.count() != 0 ? l.minimum_io_size : base;
        l.optimal_io_size = bytes(unit.count() * (1 + rng.below(16)));
    }
    if (rng.below(4) != 0) l.dio_offset_align = pow2(9, 13);
    if (rng.below(4) != 0) l.dio_mem_align = pow2(2, 12);
    if (rng.below(3) != 0)
        l.max_transfer_size = bytes((std::uint64_t{1} << (16 + rng.below(10))) + 1024 * rng.below(4));
    if (rng.below(2) != 0) l.stat_block_size = pow2(9, 22);
    return l;
}

bytes random_request(detail::xoshiro256& rng) {
    switch (rng.below(6)) {
        case 0:
            return 0_B;
        case 1:
            return bytes(1 + rng.below(8192));
        case 2:
            return bytes(max64 - rng.below(3));
        case 3:
            return bytes(std::uint64_t{1} << rng.below(64));
        default:
            return bytes(rng.next() >> rng.below(64));
    }
}

}  // namespace

TEST_CASE("sweep: aligned, within [floor, max transfer], monotonic, reproducible, decided_by tells the truth") {
    detail::xoshiro256 rng(20240607);
    int made = 0, rejected = 0;
    for (int i = 0; i < 4000; ++i) {
        const device_limits l = random_limits(rng);
        const auto mode = static_cast<io_mode>(rng.below(4));
        const bytes def = bytes(1 + rng.below(16 << 20));
        const auto p = chunk_policy::make(l, mode, fixed_default{def});
        if (!p) {
            ++rejected;  // e.g. a cap below the granularity; the message must name a limit
            CHECK(p.error().setting().size() > 0);
            continue;
        }
        ++made;
        for (int j = 0; j < 16; ++j) {
            const bytes a = random_request(rng), b = random_request(rng);
            const chunk_decision da = p->decide(a), db = p->decide(b);
            CAPTURE(a.count());
            // Aligned to every granularity the device reports (O_DIRECT's only in direct modes).
            CHECK(is_aligned(da.size, l.logical_block_size));
            CHECK(is_aligned(da.size, l.physical_block_size));
            CHECK(is_aligned(da.size, l.minimum_io_size));
            if (is_direct(mode)) {
                CHECK(is_aligned(da.size, l.dio_offset_align));
                if (l.logical_block_size.count() == 0 && l.dio_offset_align.count() == 0)
                    CHECK(is_aligned(da.size, 4_KiB));
            }
            CHECK(is_aligned(da.size, p->granularity()));
            // Within [floor, max transfer].
            CHECK(da.size >= chunk_floor);
            CHECK(da.size >= p->min_chunk());
            CHECK(da.size <= p->max_chunk());
            if (l.max_transfer_size.count() != 0) CHECK(da.size <= l.max_transfer_size);
            // Whole stripes unless the cap decided.
            if (l.optimal_io_size.count() != 0 && da.decided_by != chunk_step::max_transfer) {
                CHECK(is_aligned(da.size, l.optimal_io_size));
            }
            // decided_by is the step whose output is the result.
            switch (da.decided_by) {
                case chunk_step::requested:
                    CHECK(da.size == a);
                    break;
                case chunk_step::default_size:
                    CHECK((a.count() == 0 && da.size == def));
                    break;
                case chunk_step::floor:
                    CHECK(da.size == chunk_floor);
                    break;
                case chunk_step::max_transfer:
                    CHECK(da.size == p->max_chunk());
                    break;
                case chunk_step::optimal_io:
                    CHECK(l.optimal_io_size.count() != 0);
                    break;
                case chunk_step::alignment:
                    CHECK(l.optimal_io_size.count() == 0);
                    break;
            }
            // Monotonic in the request (0 stands for the default).
            const bytes ea = a.count() == 0 ? def : a, eb = b.count() == 0 ? def : b;
            if (ea <= eb) CHECK(da.size <= db.size);
            // Reproducible.
            CHECK(p->decide(a) == da);
        }
    }
    CHECK(made > 1000);
    MESSAGE("policies made: " << made << ", rejected: " << rejected);
}

TEST_CASE("the presets on every random device keep their invariants") {
    detail::xoshiro256 rng(7);
    for (int i = 0; i < 500; ++i) {
        const device_limits l = random_limits(rng);
        const auto cp = make_chunk_policy(chunk_presets::coreutils_cp(), l);
        const auto xapi = make_chunk_policy(chunk_presets::xapi_redo_log(), l);
        REQUIRE(cp.has_value() == xapi.has_value());  // the same checks, whatever the default step
        if (!cp) continue;
        CHECK(is_aligned(cp->decide().size, cp->granularity()));
        // io_blksize() is never below IO_BUFSIZE, unless the device's cap decides.
        CHECK((cp->decide().size >= 256_KiB || cp->decide().decided_by == chunk_step::max_transfer));
        CHECK(is_aligned(xapi->decide().size, xapi->granularity()));
    }
}

TEST_CASE("granularities below a sector are not a device's: rejected, so O_DIRECT never gets less than 512") {
    // Found by tests/fuzz/chunk_fuzz: an unknown logical block size with dio_offset_align = 1 let a direct-mode
    // chunk of 33165016 bytes through.
    provpol::device_limits l;
    l.dio_offset_align = provpol::bytes(1);
    const auto p =
        provpol::chunk_policy::make(l, provpol::io_mode::direct, provpol::fixed_default{provpol::bytes(65536)});
    REQUIRE_FALSE(p.has_value());
    CHECK(std::string(p.error().message().view()) == "dio_offset_align must be a multiple of 512, got 1");
    provpol::device_limits m;
    m.minimum_io_size = provpol::bytes(1);
    CHECK(std::string(provpol::check_device_limits(m).error().message().view()) ==
          "minimum_io_size must be a multiple of 512, got 1");
    provpol::device_limits o;
    o.optimal_io_size = provpol::bytes(4);
    CHECK_FALSE(provpol::check_device_limits(o).has_value());
}

// --- qemu-img convert's buffer: qemu-img.c img_convert(), worked by hand ------------------------------------------
// buf_sectors = MIN(32768, MAX(4096, opt_transfer >> 9, pdiscard_alignment >> 9)), in 512-byte sectors. Each
// expected size below is that formula done on paper for the limits given, not provpol's output.

TEST_CASE("qemu-img-convert: 2 MiB, raised to the output's optimal transfer or discard alignment, at most 16 MiB") {
    const auto buffer = [](bytes opt_transfer, bytes discard) {
        device_limits l;
        l.optimal_io_size = opt_transfer;
        return chunk_presets::qemu_img_convert(discard).default_step.default_size(l);
    };
    CHECK(buffer(0_B, 0_B) == 2_MiB);              // both unknown: IO_BUF_SIZE, 4096 sectors
    CHECK(buffer(1_MiB, 0_B) == 2_MiB);            // 2048 sectors < 4096
    CHECK(buffer(2_MiB, 0_B) == 2_MiB);            // 4096: equal
    CHECK(buffer(4_MiB, 0_B) == 4_MiB);            // iSCSI OPTIMAL TRANSFER LENGTH of 4 MiB: 8192 sectors
    CHECK(buffer(0_B, 8_MiB) == 8_MiB);            // discard_granularity 8 MiB: 16384 sectors
    CHECK(buffer(4_MiB, 6_MiB) == 6_MiB);          // the larger of the two: 12288 sectors
    CHECK(buffer(3_MiB + 100_B, 0_B) == 3_MiB);    // 6144.19 sectors: >> 9 drops the part sector
    CHECK(buffer(16_MiB, 0_B) == 16_MiB);          // 32768: exactly MAX_BUF_SECTORS
    CHECK(buffer(32_MiB, 0_B) == 16_MiB);          // 65536 capped at 32768
    CHECK(buffer(0_B, 1_GiB) == 16_MiB);           // a 1 GiB discard granularity (thin LV chunk): capped
    CHECK(buffer(16_MiB + 512_B, 0_B) == 16_MiB);  // 32769 capped
    // The preset's decision on a device that imposes nothing else is that size.
    device_limits stripe;
    stripe.optimal_io_size = 4_MiB;
    CHECK(make_chunk_policy(chunk_presets::qemu_img_convert(), stripe)->decide() ==
          chunk_decision{4_MiB, chunk_step::default_size});
    CHECK(make_chunk_policy(chunk_presets::qemu_img_convert(8_MiB), unknown)->decide() ==
          chunk_decision{8_MiB, chunk_step::default_size});
}
