// Fuzzes the CLI's readers of an operator's files with arbitrary bytes, the first byte choosing the reader:
// 0: vdsm.conf as configparser reads it for vdsmd (common/vdsm_conf.hpp) and the values provpol gets from it;
// 1: --config as plan reads it (common/config_input.hpp: VDSM's files, recommend's CSV and JSON answers);
// 2: a flow file (common/flow_file.hpp); 3: a VDSM log (common/latency_option.hpp, gzip and xz through their tool).
// Each either reads the input or throws the CLI's usage_error (exit 2, one line); it never crashes, hangs or throws
// anything else, and vdsm.conf read twice reads the same.
#include "fuzz_check.hpp"

#include "common/config_input.hpp"
#include "common/flow_file.hpp"
#include "common/latency_option.hpp"
#include "common/vdsm_conf.hpp"

#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace {

// A scratch file the readers open by name, rewritten for every input.
const std::string& scratch_file() {
    static const std::string path = [] {
        char name[] = "/tmp/provpol_readers_fuzz_XXXXXX";
        const int fd = ::mkstemp(name);
        PROVPOL_FUZZ_CHECK(fd >= 0);
        ::close(fd);
        std::atexit([] { ::unlink(scratch_file().c_str()); });
        return std::string(name);
    }();
    return path;
}

void write_scratch(const char* data, std::size_t size) {
    std::FILE* f = std::fopen(scratch_file().c_str(), "wb");
    PROVPOL_FUZZ_CHECK(f != nullptr);
    PROVPOL_FUZZ_CHECK(std::fwrite(data, 1, size, f) == size);
    std::fclose(f);
}

std::string conf_reading(const std::string& text) {
    provpol::cli::vdsm_conf c;
    std::string out;
    try {
        c.read(text, "fuzz.conf", "--config");
    } catch (const provpol::cli::usage_error& e) {
        return std::string("refused ") + e.what();
    }
    for (const char* k : {"volume_utilization_chunk_mb", "volume_utilization_percent"}) {
        std::string error;
        const auto v = provpol::cli::conf_getint(c, "irs", k, error);
        out += v ? std::to_string(v->value) : "!" + error;
        out += '\n';
    }
    std::string error;
    const auto b = provpol::cli::conf_getboolean(c, "mailbox", "events_enable", error);
    out += b ? (*b ? "true" : "false") : "!" + error;
    const auto f = provpol::cli::conf_getfloat(c, "mailbox", "events_interval", error);
    out += f ? std::to_string(*f) : "!" + error;
    return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size == 0 || size > 300000) return 0;
    const char* text = reinterpret_cast<const char*>(data) + 1;
    const std::size_t n = size - 1;
    try {
        switch (data[0] % 4) {
            case 0: {
                const std::string t(text, n);
                PROVPOL_FUZZ_CHECK(conf_reading(t) == conf_reading(t));
                break;
            }
            case 1: {
                write_scratch(text, n);
                const auto r = provpol::cli::read_config_files({scratch_file()}, "--config");
                PROVPOL_FUZZ_CHECK(!r.entries.empty());
                break;
            }
            case 2:
                write_scratch(text, n);
                (void)provpol::cli::read_flow_file(scratch_file(), "--latency");
                break;
            default:
                write_scratch(text, n);
                (void)provpol::cli::read_vdsm_log(scratch_file(), "--vdsm-log", "latency");
                break;
        }
    } catch (const provpol::cli::usage_error& e) {
        const std::string m = e.what();  // names the option that read the file
        PROVPOL_FUZZ_CHECK(m.rfind("--config", 0) == 0 || m.rfind("--latency", 0) == 0 ||
                           m.rfind("--vdsm-log", 0) == 0);
    }
    provpol::cli::drop_warnings();
    return 0;
}
