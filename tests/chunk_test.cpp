// Tests of provpol/chunk.hpp: the presets against their tools' rules, alignment on 512e, 4Kn, RAID and unknown
// devices, contradicting limits, and seeded sweeps of the invariants every decision keeps.
#include <provpol/chunk.hpp>
#include <provpol/random.hpp>

#include <doctest/doctest.h>

#include <cstdint>
#include <limits>
#include <string>

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
    // 2^64 - 1: no power of two above it; capped.
    CHECK(cp.default_size(st(max64)) == bytes(2146435072));
    // The 2014-2024 constant: 128 KiB. Debian 12's coreutils 9.1 `cat` (same io_blksize()) was traced with strace
    // reading and writing 131072 bytes at a time from an ext4 file with st_blksize 4096.
    CHECK(coreutils_io_blksize{128_KiB, true}.default_size(st(4096)) == bytes(131072));
    CHECK(coreutils_io_blksize{0_B, true}.default_size(st(4096)) == 0_B);  // rejected by make()
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
}  // namespace

TEST_CASE_TEMPLATE("presets: the tool's size where the device allows it, the device's limit where not", T, xapi_2010,
                   xapi_2018, coreutils, coreutils_2014, qemu, ovirt) {
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
