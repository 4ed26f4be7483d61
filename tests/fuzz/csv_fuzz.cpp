// Fuzzes the CLI's CSV reader (examples/common/csv.hpp) with arbitrary files: it either reads records or throws
// the CLI's usage_error with a message naming the option and file; it never crashes, hangs or throws anything
// else. What it reads, written back with RFC 4180 quoting, reads back to the same fields.
#include "fuzz_check.hpp"

#include "common/csv.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace {

// The fuzz input as a stream (fmemopen: no file system, so the fuzzer runs fast).
struct memfile {
    std::FILE* f = nullptr;
    memfile(const char* data, std::size_t size) {
        static const char empty = 0;
        f = fmemopen(const_cast<char*>(size ? data : &empty), size ? size : 1, "rb");
        PROVPOL_FUZZ_CHECK(f != nullptr);
        if (size == 0) std::fgetc(f);  // an empty stream: consume the placeholder byte
    }
    memfile(const memfile&) = delete;
    memfile& operator=(const memfile&) = delete;
    ~memfile() { std::fclose(f); }
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
        provpol::cli::csv_reader r(f.f, "fuzz.csv", "--input");
        while (r.next()) {
            PROVPOL_FUZZ_CHECK(r.line() >= 2);
            first_fields.push_back(r.field(0));  // a record has at least as many fields as the header
            if (first_fields.size() == 1) {
                try {
                    (void)r.size(0);  // a field read as a size: a value, or a usage_error naming file, line, column
                } catch (const provpol::cli::usage_error& e) {
                    PROVPOL_FUZZ_CHECK(std::string(e.what()).rfind("--input: ", 0) == 0);
                }
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
        provpol::cli::csv_reader r(g.f, "roundtrip.csv", "--input");
        while (r.next()) got.push_back(r.field(0));
    } catch (const provpol::cli::usage_error&) {
        // Quoting can push a line past the reader's 64 KiB limit; that refusal is correct.
        return 0;
    }
    PROVPOL_FUZZ_CHECK(got == want);
    return 0;
}
