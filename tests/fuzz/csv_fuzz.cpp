// Fuzzes the CLI's CSV reader (examples/cli/csv.hpp) with arbitrary files: it either reads records or throws
// the CLI's usage_error with a message naming the option and file; it never crashes, hangs or throws anything
// else. What it reads, written back with RFC 4180 quoting, reads back to the same fields.
#include "fuzz_check.hpp"

#include "csv.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <string>
#include <vector>

namespace {

// The fuzz input as a file: a memfd, named through /proc/self/fd.
struct memfile {
    int fd = -1;
    std::string path;
    memfile(const char* data, std::size_t size) {
        fd = memfd_create("csv_fuzz", 0);
        PROVPOL_FUZZ_CHECK(fd >= 0);
        std::size_t off = 0;
        while (off < size) {
            const ssize_t n = write(fd, data + off, size - off);
            PROVPOL_FUZZ_CHECK(n > 0);
            off += static_cast<std::size_t>(n);
        }
        path = "/proc/self/fd/" + std::to_string(fd);
    }
    memfile(const memfile&) = delete;
    memfile& operator=(const memfile&) = delete;
    ~memfile() { close(fd); }
};

std::string quote(const std::string& f) {
    std::string out = "\"";
    for (char c : f) {
        if (c == '"') out += '"';
        out += c;
    }
    return out + "\"";
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size > 200000) return 0;
    const memfile f(reinterpret_cast<const char*>(data), size);
    std::vector<std::string> first_fields;
    try {
        provpol::cli::csv_reader r(f.path, "--input");
        while (r.next()) {
            PROVPOL_FUZZ_CHECK(r.line() >= 2);
            first_fields.push_back(r.field(0));  // a record has at least as many fields as the header
            try {
                (void)r.size(0);  // a field read as a size: a value, or a usage_error naming file, line and column
            } catch (const provpol::cli::usage_error& e) {
                PROVPOL_FUZZ_CHECK(std::string(e.what()).rfind("--input: ", 0) == 0);
            }
        }
    } catch (const provpol::cli::usage_error& e) {
        PROVPOL_FUZZ_CHECK(std::string(e.what()).rfind("--input: ", 0) == 0);
        return 0;
    }
    // Round trip: the first fields, quoted, under a one-column header, read back the same (blank records are
    // skipped on reading, so empty fields are left out of the comparison).
    std::string csv = "a\n";
    std::vector<std::string> want;
    for (const auto& field : first_fields) {
        if (field.empty()) continue;
        csv += quote(field) + "\n";
        want.push_back(field);
    }
    const memfile g(csv.data(), csv.size());
    std::vector<std::string> got;
    try {
        provpol::cli::csv_reader r(g.path, "--input");
        while (r.next()) got.push_back(r.field(0));
    } catch (const provpol::cli::usage_error&) {
        // Quoting can push a line past the reader's 64 KiB limit; that refusal is correct.
        return 0;
    }
    PROVPOL_FUZZ_CHECK(got == want);
    return 0;
}
