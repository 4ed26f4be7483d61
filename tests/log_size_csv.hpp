// CSV helpers shared by the log-size tests: the parity tables in tests/data are read as they are written by
// tests/data/generate_mkfs_parity.sh (comment lines start with '#', then a header line, then rows).
#ifndef PROVPOL_TESTS_LOG_SIZE_CSV_HPP
#define PROVPOL_TESTS_LOG_SIZE_CSV_HPP

#include <doctest/doctest.h>

#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace provpol_test {

// --- CSV --------------------------------------------------------------------------------------------------------

struct csv_table {
    std::vector<std::string> header;
    std::vector<std::vector<std::string>> rows;
    std::vector<std::string> comments;

    std::size_t col(const std::string& name) const {
        for (std::size_t i = 0; i < header.size(); ++i)
            if (header[i] == name) return i;
        FAIL("no column " << name);
        return 0;
    }
};

inline std::vector<std::string> split(const std::string& line) {
    std::vector<std::string> out;
    std::string cell;
    std::istringstream in(line);
    while (std::getline(in, cell, ',')) out.push_back(cell);
    if (!line.empty() && line.back() == ',') out.emplace_back();
    return out;
}

inline csv_table read_csv(const std::string& name) {
    const std::string path = std::string(PROVPOL_TEST_DATA_DIR) + "/" + name;
    std::ifstream in(path);
    REQUIRE_MESSAGE(in.good(), "cannot open " << path);
    csv_table t;
    std::string line;
    while (std::getline(in, line)) {
        if (line.empty()) continue;
        if (line[0] == '#') {
            t.comments.push_back(line);
            continue;
        }
        if (t.header.empty())
            t.header = split(line);
        else {
            t.rows.push_back(split(line));
            REQUIRE(t.rows.back().size() == t.header.size());
        }
    }
    return t;
}

inline std::uint64_t num(const std::string& s) { return s.empty() ? 0 : std::stoull(s); }

}  // namespace provpol_test

#endif  // PROVPOL_TESTS_LOG_SIZE_CSV_HPP
