// provpol calibrate: xen-api CA-42914's dd experiment done properly. Writes a scratch file of its own inside a
// directory, in each block size and run, times it, and prints a dd-style table, the fitted cost model and the chunk
// size the rule and the model recommend for the device underneath.
#include "chunk_report.hpp"
#include "common/cli.hpp"
#include "common/csv.hpp"
#include "common/json.hpp"
#include "common/table.hpp"
#include "device_limits.hpp"
#include "scratch_file.hpp"

#include <provpol/chunk.hpp>
#include <provpol/fit/chunk.hpp>
#include <provpol/random.hpp>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace provpol::cli {

namespace {

using namespace provpol::literals;

// CA-42914's dd runs start at 1 KiB; below a 512-byte sector nothing is worth measuring.
constexpr std::uint64_t min_size = 512;
// Default sizes: CA-42914's 4 KiB and 16 KiB up to where throughput stops rising on this project's machine with
// O_DIRECT|O_DSYNC (past 4 MiB).
constexpr std::uint64_t default_sizes[] = {4 << 10, 16 << 10, 64 << 10, 256 << 10, 1 << 20, 4 << 20};

struct run_result {
    std::uint64_t block_size;
    std::uint64_t count;
    unsigned run;
    double seconds;
};

double now_seconds() {
    struct timespec ts {};
    ::clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

// pwrite until done; a short O_DIRECT write that leaves an unaligned rest fails on the next call, as it should.
void write_fully(int fd, const unsigned char* buf, std::uint64_t size, std::uint64_t offset, const std::string& where) {
    std::uint64_t done = 0;
    while (done < size) {
        const ssize_t n =
            ::pwrite(fd, buf + done, static_cast<std::size_t>(size - done), static_cast<off_t>(offset + done));
        if (n < 0) {
            if (errno == EINTR) continue;
            throw runtime_failure("writing the scratch file in '" + where + "' failed: " + std::strerror(errno));
        }
        if (n == 0) throw runtime_failure("writing the scratch file in '" + where + "' made no progress");
        done += static_cast<std::uint64_t>(n);
    }
}

void sync_data(int fd, const std::string& where) {
    if (::fdatasync(fd) != 0)
        throw runtime_failure("flushing the scratch file in '" + where + "' failed: " + std::strerror(errno));
}

// One timed pass: `count` writes of `size` bytes from offset 0, then fdatasync for buffered modes (so that the
// time includes the device, as `dd conv=fdatasync` does; O_DSYNC and O_DIRECT writes are timed as they return).
double timed_pass(int fd, const unsigned char* buf, std::uint64_t size, std::uint64_t count, bool sync_at_end,
                  const std::string& where) {
    const double start = now_seconds();
    for (std::uint64_t i = 0; i < count; ++i) write_fully(fd, buf, size, i * size, where);
    if (sync_at_end) sync_data(fd, where);
    return now_seconds() - start;
}

std::vector<std::uint64_t> parse_sizes(const args& a, std::uint64_t total) {
    std::vector<std::uint64_t> sizes;
    if (a.has("--sizes")) {
        for (const std::string& t : a.values("--sizes")) {
            const auto r = parse_size(t, "--sizes");
            if (!r) fail(r.error(), "--sizes");
            if (r->count() < min_size)
                throw usage_error("--sizes: " + args::printable(t) + " is below " + std::to_string(min_size) +
                                  " bytes");
            if (r->count() > total)
                throw usage_error("--sizes: " + args::printable(t) + " is larger than --bytes (" +
                                  scratch_dir::size_text_of(total) + ")");
            if (std::find(sizes.begin(), sizes.end(), r->count()) != sizes.end())
                throw usage_error("--sizes: " + args::printable(t) + " is given twice");
            sizes.push_back(r->count());
        }
        if (sizes.size() > 32) throw usage_error("--sizes: at most 32 sizes");
    } else {
        for (std::uint64_t s : default_sizes)
            if (s <= total) sizes.push_back(s);
        if (sizes.empty()) throw usage_error("--bytes must be at least 4KiB with the default --sizes");
    }
    std::sort(sizes.begin(), sizes.end());
    return sizes;
}

std::string join_reals(const std::vector<double>& v, int digits) {
    std::string out;
    char buf[32];
    for (double x : v) {
        std::snprintf(buf, sizeof buf, "%.*g", digits, x);
        out += (out.empty() ? "" : ", ") + std::string(buf);
    }
    return out;
}

// The rule line (the chosen rule's first), and the other rule's pick beside it.
void print_rule_lines(const calibration& cal, double fraction, double best) {
    const steady_choice& st = cal.steady;
    const auto smallest = [&](const char* label) {
        std::printf("%s %s: the smallest size whose median reaches %g%% of the best (%.4g MB/s at %s)\n", label,
                    format_size(cal.smallest.block_size).c_str(), fraction * 100, best,
                    format_size(cal.smallest.best_block_size).c_str());
    };
    const auto steady = [&](const char* label) {
        std::printf(
            "%s %s: the smallest size whose lowest median within a factor of 2 reaches %g%% of the best such "
            "(%.4g MB/s at %s)\n",
            label, format_size(st.block_size).c_str(), fraction * 100, to_mb_per_s(st.best_steady_bytes_per_second),
            format_size(st.best_steady_block_size).c_str());
    };
    if (cal.which == sample_rule::steady) {  // the chosen rule is the "rule" line, the other one follows
        steady("rule  ");
        smallest("median");
    } else {
        smallest("rule  ");
        steady("steady");
    }
}

// The options of one calibration, read and checked before anything is written.
struct calibrate_request {
    format fmt = format::text;
    std::string path;                  // --path: the directory to measure in
    std::uint64_t total = 0;           // --bytes written per size and run
    std::vector<std::uint64_t> sizes;  // --sizes, ascending
    unsigned runs = 3;                 // --runs
    io_mode mode = io_mode::direct;    // --mode
    double fraction = default_target_fraction;
    sample_rule rule = sample_rule::smallest;
    std::optional<std::string> save;  // --save-samples
};

// --save-samples: a file name whose directory exists, not a directory.
void check_save_path(const std::string& save) {
    if (save.empty()) throw usage_error("--save-samples: empty file name");
    struct stat st {};
    if (::stat(save.c_str(), &st) == 0 && S_ISDIR(st.st_mode))
        throw usage_error("--save-samples: '" + args::printable(save) + "' is a directory");
    const std::size_t slash = save.rfind('/');
    const std::string parent = slash == std::string::npos ? "." : (slash == 0 ? "/" : save.substr(0, slash));
    if (::stat(parent.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
        throw usage_error("--save-samples: the directory of '" + args::printable(save) + "' does not exist");
}

calibrate_request read_calibrate_request(const args& a) {
    calibrate_request q;
    q.fmt = a.output_format();
    const auto path = a.value("--path");
    if (!path) throw usage_error("--path is required (a directory on the device to measure)");
    q.path = *path;
    q.total = a.size("--bytes").value_or(64_MiB).count();
    if (q.total == 0) throw usage_error("--bytes must be at least 1, got 0");
    q.sizes = parse_sizes(a, q.total);
    q.runs = static_cast<unsigned>(a.count("--runs", 1, 100).value_or(3));
    if (const auto m = a.value("--mode")) {
        const auto r = parse_io_mode(*m, "--mode");
        if (!r) fail(r.error(), "--mode");
        q.mode = *r;
    }
    q.fraction =
        a.decimal("--target-fraction", min_target_fraction, max_target_fraction).value_or(default_target_fraction);
    q.rule = parse_sample_rule(a);
    q.save = a.value("--save-samples");
    if (q.save) check_save_path(*q.save);
    return q;
}

// What O_DIRECT needs here, before anything is written: statx's offset alignment, else the logical block size,
// else 4 KiB (the chunk policy's rule). Sizes that are legal but not multiples of the physical block are kept:
// measuring them is the point (CA-42914 measured 1 KiB and 2 KiB on 512-byte devices). Returns the buffer's
// alignment.
std::size_t check_alignment(const calibrate_request& q, const device_limits& dl) {
    const std::uint64_t dio_need = dl.dio_offset_align.count() != 0     ? dl.dio_offset_align.count()
                                   : dl.logical_block_size.count() != 0 ? dl.logical_block_size.count()
                                                                        : 4096;
    if (is_direct(q.mode))
        for (std::uint64_t s : q.sizes)
            if (s % dio_need != 0)
                throw usage_error("--sizes: " + scratch_dir::size_text_of(s) + " is not a multiple of " +
                                  scratch_dir::size_text_of(dio_need) +
                                  ", the alignment O_DIRECT needs on this device");
    const std::uint64_t mem_need = dl.dio_mem_align.count() != 0 ? dl.dio_mem_align.count() : dio_need;
    return static_cast<std::size_t>(std::max<std::uint64_t>(4096, mem_need));
}

using aligned_buffer = std::unique_ptr<unsigned char, decltype(&std::free)>;

// `size` random bytes, not zeros (storage that detects zeros, thin provisioning or compression, would skip them).
aligned_buffer random_buffer(std::size_t alignment, std::uint64_t size) {
    void* raw = nullptr;
    if (::posix_memalign(&raw, alignment, static_cast<std::size_t>(size)) != 0 || raw == nullptr)
        throw runtime_failure("cannot allocate a " + scratch_dir::size_text_of(size) + " aligned buffer");
    aligned_buffer buffer(static_cast<unsigned char*>(raw), &std::free);
    provpol::random_stream rng(0x70726f76706f6cULL);
    for (std::uint64_t i = 0; i + 8 <= size; i += 8) {
        const std::uint64_t v = rng.next();
        std::memcpy(buffer.get() + i, &v, 8);
    }
    return buffer;
}

// The region every pass writes: [0, count * size) with count = total / size, and the size that writes it all.
std::pair<std::uint64_t, std::uint64_t> write_region(const calibrate_request& q) {
    std::uint64_t region = 0, region_size = q.sizes.back();
    for (std::uint64_t s : q.sizes) {
        if (q.total / s * s > region) {
            region = q.total / s * s;
            region_size = s;
        }
    }
    return {region, region_size};
}

// The timed runs and the limits of the device they ran on.
struct measurement {
    path_limits limits;
    std::vector<run_result> results;
    std::vector<throughput_sample> samples;  // one per result, in the same order
};

// Every size and run on the scratch file. Runs alternate between ascending and descending sizes, so that a slow
// drift (cache, device state) does not line up with the block size.
void timed_runs(const calibrate_request& q, int fd, const unsigned char* buf, measurement& m) {
    const std::string where = args::printable(q.path);
    progress_line progress(::isatty(STDERR_FILENO) == 1);
    const auto [region, region_size] = write_region(q);
    if (progress.on())
        std::fprintf(stderr, "provpol calibrate: preparing %s in %s", scratch_dir::size_text_of(region).c_str(),
                     where.c_str());
    timed_pass(fd, buf, region_size, region / region_size, true, where);
    const std::vector<std::uint64_t>& sizes = q.sizes;
    for (unsigned run = 1; run <= q.runs; ++run) {
        for (std::size_t k = 0; k < sizes.size(); ++k) {
            const std::uint64_t s = run % 2 == 1 ? sizes[k] : sizes[sizes.size() - 1 - k];
            if (progress.on())
                std::fprintf(stderr, "\r\033[Kprovpol calibrate: run %u/%u, %s writes (%zu/%zu)", run, q.runs,
                             scratch_dir::size_text_of(s).c_str(), k + 1, sizes.size());
            const std::uint64_t count = q.total / s;
            m.results.push_back({s, count, run, timed_pass(fd, buf, s, count, !is_direct(q.mode), where)});
        }
    }
    progress.clear();
}

// Writes the scratch file of its own in --path and times it; the file is gone when this returns. The largest
// region is written once before timing, so that timed passes overwrite allocated blocks (as a redo log or an image
// copier does) rather than measure the filesystem's allocator.
measurement measure(const calibrate_request& q) {
    const scratch_dir dir(q.path, write_region(q).first);
    const signal_cleanup cleanup;
    const bool direct = is_direct(q.mode);
    const int flags = (direct ? O_DIRECT : 0) | (is_dsync(q.mode) ? O_DSYNC : 0);
    const char* flags_name = direct ? (is_dsync(q.mode) ? "O_DIRECT|O_DSYNC" : "O_DIRECT") : "O_DSYNC";
    const scratch_file file(dir, flags, flags_name);
    measurement m;
    m.limits = read_fd_limits(file.fd());
    const aligned_buffer buffer = random_buffer(check_alignment(q, m.limits.limits), q.sizes.back());
    timed_runs(q, file.fd(), buffer.get(), m);
    for (const run_result& r : m.results)
        m.samples.push_back(
            {bytes(r.block_size), static_cast<double>(r.block_size * r.count) / std::max(r.seconds, 1e-9)});
    return m;
}

// The library's answer on the measurement: the calibration, the policy for the device, and its chunk.
struct calibrate_answer {
    measurement m;
    calibration cal;
    chunk_policy policy;
    chunk_decision decision;
};

calibrate_answer answer_of(const calibrate_request& q, measurement m) {
    calibration cal = calibrate_samples(m.samples, q.fraction, q.rule);
    const auto policy = chunk_policy::make(m.limits.limits, q.mode, fixed_default{cal.rule.block_size});
    if (!policy)
        throw runtime_failure("the device's limits contradict each other: " + text_of(policy.error().message().view()));
    const chunk_decision d = policy->decide(cal.rule.block_size);
    return {std::move(m), std::move(cal), *policy, d};
}

// --save-samples: the runs as CSV block_size,mb_per_s.
void save_samples(const std::string& save, const std::vector<throughput_sample>& samples) {
    std::string csv;
    csv_writer w(csv);
    w.field("block_size").field("mb_per_s").end_row();
    for (const throughput_sample& s : samples) {
        char mbps[32];
        std::snprintf(mbps, sizeof mbps, "%.6g", to_mb_per_s(s.bytes_per_second));
        w.field(s.block_size.count()).field(mbps).end_row();
    }
    std::FILE* out = std::fopen(save.c_str(), "w");
    if (out == nullptr)
        throw runtime_failure("--save-samples: cannot create '" + args::printable(save) + "': " + std::strerror(errno));
    const bool written = std::fwrite(csv.data(), 1, csv.size(), out) == csv.size();
    if (std::fclose(out) != 0 || !written)
        throw runtime_failure("--save-samples: writing '" + args::printable(save) +
                              "' failed: " + std::strerror(errno));
}

// The answer as `provpol chunk --format csv`'s row (chunk_report.hpp), with the calibration's fields.
report_fields answer_fields(const calibrate_request& q, const calibrate_answer& x) {
    report_fields f;
    f.add("chunk_size", cell::of_size(x.decision.size));
    f.add("decided_by", cell::of_text(text_of(to_text(x.decision.decided_by))));
    f.add("requested_by", cell::of_text("samples"));
    f.add("requested_size", cell::of_size(x.cal.rule.block_size));
    f.add("path", cell::of_text(q.path));
    f.add("bytes", cell::of_size(bytes(q.total)));
    f.add("runs", cell::of(q.runs));
    path_limits shown = x.m.limits;  // the limits are the scratch file's; the path given is its directory
    shown.kind = "directory";
    add_policy_fields(f, x.policy, &shown);
    add_calibration_fields(f, &x.cal, x.policy, q.fraction);
    return f;
}

// Like every subcommand's JSON, an array of objects: one, the CSV row's columns plus "runs", every run.
std::string json_text(const report_fields& f, const measurement& m) {
    std::string out;
    json_writer w(out);
    w.begin_array();
    const table& row = f.table();
    w.begin_object();
    for (std::size_t c = 0; c < row.columns().size(); ++c) {
        w.key(row.columns()[c]);
        row.rows()[0][c].write_json(w);
    }
    w.key("runs");
    w.begin_array();
    for (std::size_t i = 0; i < m.results.size(); ++i) {
        const run_result& r = m.results[i];
        w.begin_object();
        w.key("block_size");
        w.number(r.block_size);
        w.key("count");
        w.number(r.count);
        w.key("run");
        w.number(std::uint64_t{r.run});
        w.key("seconds");
        w.real(r.seconds, 6);
        w.key("mb_per_s");
        w.real(to_mb_per_s(m.samples[i].bytes_per_second), 6);
        w.end_object();
    }
    w.end_array();
    w.end_object();
    w.end_array();
    return out;
}

// A dd-style table: one row per size, the runs side by side, and the model there.
cli::table runs_table(const calibrate_answer& x) {
    const calibration& cal = x.cal;
    cli::table t({"block_size", "count", "seconds", "mb_per_s", "median_mb_per_s", "model_mb_per_s", "residual"});
    for (std::size_t i = 0; i < cal.sorted.size();) {
        const size_stats s = size_stats_at(cal.sorted.data(), cal.sorted.size(), i);
        std::vector<double> secs, rates;
        std::uint64_t count = 0;
        for (std::size_t j = 0; j < x.m.results.size(); ++j) {
            if (x.m.results[j].block_size != s.block_size.count()) continue;
            secs.push_back(x.m.results[j].seconds);
            rates.push_back(to_mb_per_s(x.m.samples[j].bytes_per_second));
            count = x.m.results[j].count;
        }
        std::vector<cell> row = {cell::of_size(s.block_size), cell::of(count), cell::of_text(join_reals(secs, 4)),
                                 cell::of_text(join_reals(rates, 4)),
                                 cell::of_real(to_mb_per_s(s.median_bytes_per_second), 4)};
        if (cal.fit) {
            row.push_back(cell::of_real(to_mb_per_s(cal.fit->model.bytes_per_second(s.block_size)), 4));
            row.push_back(cell::of_text(
                percent_text(relative_residual(cal.fit->model, {s.block_size, s.median_bytes_per_second}))));
        }
        t.add_row(row);
        i += s.runs;
    }
    return t;
}

// Text: the runs' table, then the model, the rule lines and the answer.
void print_text(const calibrate_request& q, const calibrate_answer& x) {
    const calibration& cal = x.cal;
    runs_table(x).print_text(stdout);
    std::fputs("\n", stdout);
    if (cal.fit) {
        const cost_model& m = cal.fit->model;
        std::printf(
            "model  t0 = %.4g us per write, B = %.4g MB/s (weighted least squares; residuals rms %.1f%%, max "
            "%.1f%%%s)\n",
            m.latency_seconds.count() * 1e6, to_mb_per_s(m.bandwidth_bytes_per_second),
            cal.fit->rms_relative_residual * 100, cal.fit->max_relative_residual * 100,
            cal.fit->latency_clamped ? "; t0 clamped at 0" : "");
    } else {
        std::printf("model  none: %s\n", cal.fit_problem.c_str());
    }
    print_rule_lines(cal, q.fraction, to_mb_per_s(cal.rule.best_bytes_per_second));
    if (cal.fit && cal.fit_size) {
        const chunk_decision fd = x.policy.decide(*cal.fit_size);
        std::printf("fit    %s (%s) reaches %g%% of B under the model; as a chunk here: %s (decided by %s)\n",
                    format_size(*cal.fit_size).c_str(), scratch_dir::approx(cal.fit_size->count()).c_str(),
                    q.fraction * 100, format_size(fd.size).c_str(), text_of(to_text(fd.decided_by)).c_str());
    }
    const path_limits& limits = x.m.limits;
    std::printf("chunk  %s (the rule's size, decided by %s; %s on %s%s%s: granularity %s, largest chunk %s)\n",
                format_size(x.decision.size).c_str(), text_of(to_text(x.decision.decided_by)).c_str(),
                text_of(to_text(q.mode)).c_str(), limits.device.c_str(), limits.disk.empty() ? "" : " ",
                limits.disk.empty() ? "" : ("(" + limits.disk + ")").c_str(),
                format_size(x.policy.granularity()).c_str(),
                limits.limits.max_transfer_size.count() != 0 ? format_size(x.policy.max_chunk()).c_str() : "unbounded");
}

// The one printer: csv the fields' row, json that row and every run, text the dd-style report.
void print_answer(const calibrate_request& q, const calibrate_answer& x) {
    if (q.fmt == format::text) return print_text(q, x);
    const report_fields f = answer_fields(q, x);
    if (q.fmt == format::csv) return f.table().print(stdout, q.fmt);
    const std::string out = json_text(f, x.m);
    std::fwrite(out.data(), 1, out.size(), stdout);
}

}  // namespace

int run_calibrate(int argc, char** argv) {
    const args a(
        "calibrate",
        "provpol calibrate --path DIR [--sizes LIST] [--bytes SIZE] [--runs N]\n"
        "                         [--mode direct|direct-dsync|buffered|buffered-dsync] [--target-fraction F]\n"
        "                         [--rule smallest|steady] [--save-samples FILE] [--format text|csv|json]\n\n"
        "Measures write throughput per block size on the device under DIR, as the Xen-API redo log's dd timings\n"
        "did: writes a scratch file it creates inside DIR (never an existing file, never a device) for every\n"
        "size and run, with aligned buffers; removes it on success, error and signals; checks free space first.\n"
        "Prints a dd-style table, the fitted model t0 + bs / B, and the chunk size the rule and the model\n"
        "recommend for the device. Buffered runs end with fdatasync, inside the timing. Progress goes to stderr\n"
        "when it is a terminal. csv: one row with every field, like `provpol chunk --format csv`; json: that\n"
        "row and every run.",
        {
            {"--path", "DIR", "a directory on the device to measure (required)"},
            {"--sizes", "LIST", "block sizes, comma-separated (default 4KiB,16KiB,64KiB,256KiB,1MiB,4MiB)"},
            {"--bytes", "SIZE", "bytes written per size and run (default 64MiB)"},
            {"--runs", "N", "runs per size, in [1, 100] (default 3)"},
            {"--mode", "MODE", "direct (default), direct-dsync, buffered or buffered-dsync"},
            {"--target-fraction", "F", "the share of the best throughput to reach, in [0.01, 0.999] (default 0.95)"},
            {"--rule", "RULE",
             "smallest (default) or steady (each size's lowest median within a factor of 2): which pick is the "
             "chunk"},
            {"--save-samples", "FILE", "also write the runs as CSV block_size,mb_per_s (for provpol chunk)"},
            {"--format", "FORMAT", "text (default), csv or json"},
        },
        argc, argv);
    const calibrate_request q = read_calibrate_request(a);
    const calibrate_answer x = answer_of(q, measure(q));
    if (q.save) save_samples(*q.save, x.m.samples);
    print_answer(q, x);
    return 0;
}

}  // namespace provpol::cli
