// Invariant checks for provpol's fuzzers: a failed check prints what failed and aborts, so that libFuzzer
// records the input as a crash and the replay test fails.
#ifndef PROVPOL_FUZZ_CHECK_HPP
#define PROVPOL_FUZZ_CHECK_HPP

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#define PROVPOL_FUZZ_CHECK(cond)                                                                   \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            std::fprintf(stderr, "%s:%d: fuzz invariant failed: %s\n", __FILE__, __LINE__, #cond); \
            std::abort();                                                                          \
        }                                                                                          \
    } while (0)

namespace provpol::fuzz {

/// Reads fixed-size values from the fuzz input, then zeros when it runs out.
class reader {
public:
    reader(const std::uint8_t* data, std::size_t size) : data_(data), size_(size) {}
    std::uint64_t u64() {
        std::uint64_t v = 0;
        const std::size_t n = size_ - pos_ < 8 ? size_ - pos_ : 8;
        std::memcpy(&v, data_ + pos_, n);
        pos_ += n;
        return v;
    }
    std::uint32_t u32() { return static_cast<std::uint32_t>(u64()); }
    std::uint8_t u8() { return pos_ < size_ ? data_[pos_++] : 0; }
    bool flag() { return (u8() & 1) != 0; }
    /// A value that is often an edge: 0, 1, 2^64 - 1, near a power of two, or a random size.
    std::uint64_t size_like() {
        const std::uint8_t kind = u8();
        const std::uint64_t v = u64();
        switch (kind % 8) {
            case 0:
                return 0;
            case 1:
                return ~std::uint64_t{0} - (v & 0xFFFF);
            case 2:
                return (std::uint64_t{1} << (v % 64)) + (kind & 0x10 ? 0 : (v >> 60)) - (kind & 0x20 ? 1 : 0);
            case 3:
                return (v & 0xFFFFF) << 20;  // whole MiB up to 1 TiB
            default:
                return v >> (kind % 64);
        }
    }
    const std::uint8_t* rest() const { return data_ + pos_; }
    std::size_t remaining() const { return size_ - pos_; }

private:
    const std::uint8_t* data_;
    std::size_t size_;
    std::size_t pos_ = 0;
};

}  // namespace provpol::fuzz

#endif  // PROVPOL_FUZZ_CHECK_HPP
