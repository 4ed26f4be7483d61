// The CLI's one input reader (examples/common/input.hpp) on inputs that fail: every way a read can fail is one usage
// error (exit 2), in bounded time and memory — a read error (EIO from /proc/self/mem, EBADF from a closed stdin),
// a directory, a device that never ends (/dev/zero), a FIFO with no writer, a pipe that stays silent — and
// logrotate's compressed files read through their own tool, their failures included.
#include "common/input.hpp"

#include <doctest/doctest.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <thread>

using namespace provpol;
using namespace provpol::cli;

namespace {

const std::string scratch_dir = PROVPOL_TEST_SCRATCH_DIR;

std::string scratch(const std::string& name, const std::string& text) {
    const std::string path = scratch_dir + "/" + name;
    std::FILE* f = std::fopen(path.c_str(), "wb");
    REQUIRE(f != nullptr);
    std::fwrite(text.data(), 1, text.size(), f);
    std::fclose(f);
    return path;
}

std::string error_of(const std::function<void()>& f) {
    try {
        f();
    } catch (const usage_error& e) {
        return e.what();
    }
    return "";
}

std::string read_all(const std::string& path, text_input::rules r = {}) {
    text_input in(path, "--x", r);
    std::string out;
    in.read_all(out);
    return out;
}

bool have(const char* tool) {
    const std::string cmd = std::string("command -v ") + tool + " >/dev/null 2>&1";
    return std::system(cmd.c_str()) == 0;
}

}  // namespace

TEST_CASE("text_input: a read error is the input's error, exit 2, one line") {
    // /proc/self/mem opens, and reading its offset 0 (unmapped) fails with EIO.
    const std::string eio = error_of([] { read_all("/proc/self/mem"); });
    CHECK(eio.find("--x: reading '/proc/self/mem' failed: Input/output error") != std::string::npos);
    CHECK(eio.find('\n') == std::string::npos);
    // A directory, named as the caller's rules say.
    text_input::rules r;
    r.not_a = "a configuration file";
    CHECK(error_of([&] { read_all(scratch_dir, r); }).find("is a directory, not a configuration file") !=
          std::string::npos);
    // stdin closed (EBADF): "-" refuses at once, before any other file could take descriptor 0.
    const int saved = ::dup(0);
    REQUIRE(saved >= 0);
    ::close(0);
    const std::string ebadf = error_of([] { read_all("-"); });
    ::dup2(saved, 0);
    ::close(saved);
    CHECK(ebadf.find("--x: cannot read stdin: Bad file descriptor") != std::string::npos);
    // A stream that is not open.
    CHECK(error_of([] { text_input in(static_cast<std::FILE*>(nullptr), "s", "--x", {}); }).find("Bad file") !=
          std::string::npos);
}

TEST_CASE("text_input: a device or a pipe that never ends stops at max_bytes") {
    text_input::rules r;
    r.max_bytes = std::uint64_t{8} << 20;
    r.not_a = "a VDSM log";
    const std::string e = error_of([&] {
        text_input in("/dev/zero", "--vdsm-log", r);
        std::string line;
        while (in.next(line)) {
        }
    });
    CHECK(e == "--vdsm-log: '/dev/zero' is larger than 8 MiB: not a VDSM log");
    // A NUL rule refuses /dev/zero at its first block.
    r.nul = "a NUL byte";
    const std::string nul = error_of([&] {
        text_input in("/dev/zero", "--x", r);
        std::string line;
        while (in.next(line)) {
        }
    });
    CHECK(nul == "--x: /dev/zero:1: a NUL byte");
}

TEST_CASE("text_input: a FIFO with no writer, or a silent one, ends after idle_timeout_ms") {
    const std::string fifo = scratch_dir + "/input_test.fifo";
    ::unlink(fifo.c_str());
    REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
    text_input::rules r;
    r.idle_timeout_ms = 200;
    const auto start = std::chrono::steady_clock::now();
    const std::string none = error_of([&] { read_all(fifo, r); });  // open(2) does not block; poll(2) times out
    CHECK(none.find("gave nothing for 0.2 s (a FIFO with no writer?)") != std::string::npos);
    // A writer that writes a line and stays: the line is read, then the silence times out.
    std::thread writer([&] {
        const int fd = ::open(fifo.c_str(), O_WRONLY);
        if (fd < 0) return;
        (void)!::write(fd, "a\n", 2);
        std::this_thread::sleep_for(std::chrono::milliseconds(600));
        ::close(fd);
    });
    std::string got;
    const std::string silent = error_of([&] {
        text_input in(fifo, "--x", r);
        std::string line;
        while (in.next(line)) got += line;
    });
    writer.join();
    CHECK(got == "a");
    CHECK(silent.find("gave nothing") != std::string::npos);
    // A writer that closes: the end of the input, no error.
    std::thread closer([&] {
        const int fd = ::open(fifo.c_str(), O_WRONLY);
        if (fd < 0) return;
        (void)!::write(fd, "b\n", 2);
        ::close(fd);
    });
    text_input::rules slow;
    slow.idle_timeout_ms = 5000;
    CHECK(read_all(fifo, slow) == "b\n");
    closer.join();
    ::unlink(fifo.c_str());
    CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(30));
}

TEST_CASE("text_input: gzip and xz files are read through their tool, only with rules::decompress") {
    const std::string text = "line one\nline two\n";
    const std::string plain = scratch("input_test.log", text);
    text_input::rules r;
    r.decompress = true;
    if (have("gzip")) {
        REQUIRE(std::system(("gzip -c " + plain + " > " + plain + ".gz").c_str()) == 0);
        CHECK(read_all(plain + ".gz", r) == text);
        CHECK(read_all(plain + ".gz") != text);  // without the rule, the bytes as they are
        // A truncated archive: the tool's failure, with its own words.
        const std::string cut = read_all(plain + ".gz");
        const std::string truncated = scratch("input_test_cut.log.gz", cut.substr(0, cut.size() - 6));
        CHECK(error_of([&] { read_all(truncated, r); }).find("gzip -dc failed") != std::string::npos);
    }
    if (have("xz")) {
        REQUIRE(std::system(("xz -c " + plain + " > " + plain + ".xz").c_str()) == 0);
        CHECK(read_all(plain + ".xz", r) == text);
        // A decompression bomb stops at max_bytes, the tool stopped.
        REQUIRE(std::system(("head -c 50000000 /dev/zero | xz -c > " + scratch_dir + "/input_test_bomb.xz").c_str()) ==
                0);
        text_input::rules small = r;
        small.max_bytes = std::uint64_t{1} << 20;
        CHECK(error_of([&] { read_all(scratch_dir + "/input_test_bomb.xz", small); }) ==
              "--x: '" + scratch_dir +
                  "/input_test_bomb.xz' is larger than 1 MiB once decompressed: not a file provpol reads");
    }
    // A compressed pipe cannot be handed to the tool: said, with the command that reads it.
    const std::string fifo = scratch_dir + "/input_test_gz.fifo";
    ::unlink(fifo.c_str());
    REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
    std::thread writer([&] {
        const int fd = ::open(fifo.c_str(), O_WRONLY);
        if (fd < 0) return;
        (void)!::write(fd, "\x1f\x8b\x08\x00", 4);
        ::close(fd);
    });
    CHECK(error_of([&] { read_all(fifo, r); })
              .find("is gzip-compressed: give the file's name, or pipe it through "
                    "gzip -dc") != std::string::npos);
    writer.join();
    ::unlink(fifo.c_str());
}

TEST_CASE("text_input: a compressor that is not installed is named, with its package") {
    const std::string zst = scratch("input_test.log.zst", std::string("\x28\xb5\x2f\xfd", 4) + "not really");
    const char* path = std::getenv("PATH");
    const std::string saved = path ? path : "";
    ::setenv("PATH", "/nonexistent", 1);
    text_input::rules r;
    r.decompress = true;
    const std::string e = error_of([&] { read_all(zst, r); });
    ::setenv("PATH", saved.c_str(), 1);
    CHECK(e.find("is zstd-compressed, and zstd cannot be run") != std::string::npos);
}
