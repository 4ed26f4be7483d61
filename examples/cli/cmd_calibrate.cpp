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
#include <string>
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

}  // namespace

// long: not split yet: options, checks, library calls and printing of the command in one
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
    const format fmt = a.output_format();
    const auto path = a.value("--path");
    if (!path) throw usage_error("--path is required (a directory on the device to measure)");
    const std::uint64_t total = a.size("--bytes").value_or(64_MiB).count();
    if (total == 0) throw usage_error("--bytes must be at least 1, got 0");
    const std::vector<std::uint64_t> sizes = parse_sizes(a, total);
    const auto runs = static_cast<unsigned>(a.count("--runs", 1, 100).value_or(3));
    io_mode mode = io_mode::direct;
    if (const auto m = a.value("--mode")) {
        const auto r = parse_io_mode(*m, "--mode");
        if (!r) fail(r.error(), "--mode");
        mode = *r;
    }
    const double fraction =
        a.decimal("--target-fraction", min_target_fraction, max_target_fraction).value_or(default_target_fraction);
    const sample_rule rule = parse_sample_rule(a);
    const auto save = a.value("--save-samples");
    if (save) {
        if (save->empty()) throw usage_error("--save-samples: empty file name");
        struct stat st {};
        if (::stat(save->c_str(), &st) == 0 && S_ISDIR(st.st_mode))
            throw usage_error("--save-samples: '" + args::printable(*save) + "' is a directory");
        const std::size_t slash = save->rfind('/');
        const std::string parent = slash == std::string::npos ? "." : (slash == 0 ? "/" : save->substr(0, slash));
        if (::stat(parent.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
            throw usage_error("--save-samples: the directory of '" + args::printable(*save) + "' does not exist");
    }

    // The region every pass writes: [0, count * size) with count = total / size; the largest is written once
    // before timing, so that timed passes overwrite allocated blocks (as a redo log or an image copier does)
    // rather than measure the filesystem's allocator.
    std::uint64_t region = 0, region_size = sizes.back();
    for (std::uint64_t s : sizes) {
        if (total / s * s > region) {
            region = total / s * s;
            region_size = s;
        }
    }

    const scratch_dir dir(*path, region);
    const signal_cleanup cleanup;
    const bool direct = is_direct(mode);
    const int flags = (direct ? O_DIRECT : 0) | (is_dsync(mode) ? O_DSYNC : 0);
    const char* flags_name = direct ? (is_dsync(mode) ? "O_DIRECT|O_DSYNC" : "O_DIRECT") : "O_DSYNC";
    const scratch_file file(dir, flags, flags_name);
    const path_limits limits = read_fd_limits(file.fd());

    // What O_DIRECT needs here, before anything is written: statx's offset alignment, else the logical block size,
    // else 4 KiB (the chunk policy's rule). Sizes that are legal but not multiples of the physical block are kept:
    // measuring them is the point (CA-42914 measured 1 KiB and 2 KiB on 512-byte devices).
    const device_limits& dl = limits.limits;
    const std::uint64_t dio_need = dl.dio_offset_align.count() != 0     ? dl.dio_offset_align.count()
                                   : dl.logical_block_size.count() != 0 ? dl.logical_block_size.count()
                                                                        : 4096;
    if (direct)
        for (std::uint64_t s : sizes)
            if (s % dio_need != 0)
                throw usage_error("--sizes: " + scratch_dir::size_text_of(s) + " is not a multiple of " +
                                  scratch_dir::size_text_of(dio_need) +
                                  ", the alignment O_DIRECT needs on this device");
    const std::uint64_t mem_need = dl.dio_mem_align.count() != 0 ? dl.dio_mem_align.count() : dio_need;
    const std::size_t alignment = static_cast<std::size_t>(std::max<std::uint64_t>(4096, mem_need));
    void* raw = nullptr;
    if (::posix_memalign(&raw, alignment, static_cast<std::size_t>(sizes.back())) != 0 || raw == nullptr)
        throw runtime_failure("cannot allocate a " + scratch_dir::size_text_of(sizes.back()) + " aligned buffer");
    const std::unique_ptr<unsigned char, decltype(&std::free)> buffer(static_cast<unsigned char*>(raw), &std::free);
    // Random bytes, not zeros: storage that detects zeros (thin provisioning, compression) would skip them.
    provpol::random_stream rng(0x70726f76706f6cULL);
    for (std::uint64_t i = 0; i + 8 <= sizes.back(); i += 8) {
        const std::uint64_t v = rng.next();
        std::memcpy(buffer.get() + i, &v, 8);
    }

    const std::string where = args::printable(*path);
    const bool buffered = !direct;
    progress_line progress(::isatty(STDERR_FILENO) == 1);
    if (progress.on())
        std::fprintf(stderr, "provpol calibrate: preparing %s in %s", scratch_dir::size_text_of(region).c_str(),
                     where.c_str());
    timed_pass(file.fd(), buffer.get(), region_size, region / region_size, true, where);

    // Runs alternate between ascending and descending sizes, so that a slow drift (cache, device state) does not
    // line up with the block size.
    std::vector<run_result> results;
    for (unsigned run = 1; run <= runs; ++run) {
        for (std::size_t k = 0; k < sizes.size(); ++k) {
            const std::uint64_t s = run % 2 == 1 ? sizes[k] : sizes[sizes.size() - 1 - k];
            if (progress.on())
                std::fprintf(stderr, "\r\033[Kprovpol calibrate: run %u/%u, %s writes (%zu/%zu)", run, runs,
                             scratch_dir::size_text_of(s).c_str(), k + 1, sizes.size());
            const std::uint64_t count = total / s;
            results.push_back({s, count, run, timed_pass(file.fd(), buffer.get(), s, count, buffered, where)});
        }
    }
    progress.clear();

    std::vector<throughput_sample> samples;
    for (const run_result& r : results)
        samples.push_back(
            {bytes(r.block_size), static_cast<double>(r.block_size * r.count) / std::max(r.seconds, 1e-9)});
    const calibration cal = calibrate_samples(samples, fraction, rule);
    const auto policy = chunk_policy::make(limits.limits, mode, fixed_default{cal.rule.block_size});
    if (!policy)
        throw runtime_failure("the device's limits contradict each other: " + text_of(policy.error().message().view()));
    const chunk_decision d = policy->decide(cal.rule.block_size);

    if (save) {
        std::string csv;
        csv_writer w(csv);
        w.field("block_size").field("mb_per_s").end_row();
        for (const throughput_sample& s : samples) {
            char mbps[32];
            std::snprintf(mbps, sizeof mbps, "%.6g", to_mb_per_s(s.bytes_per_second));
            w.field(s.block_size.count()).field(mbps).end_row();
        }
        std::FILE* out = std::fopen(save->c_str(), "w");
        if (out == nullptr)
            throw runtime_failure("--save-samples: cannot create '" + args::printable(*save) +
                                  "': " + std::strerror(errno));
        const bool written = std::fwrite(csv.data(), 1, csv.size(), out) == csv.size();
        if (std::fclose(out) != 0 || !written)
            throw runtime_failure("--save-samples: writing '" + args::printable(*save) +
                                  "' failed: " + std::strerror(errno));
    }

    report_fields f;
    f.add("chunk_size", cell::of_size(d.size));
    f.add("decided_by", cell::of_text(text_of(to_text(d.decided_by))));
    f.add("requested_by", cell::of_text("samples"));
    f.add("requested_size", cell::of_size(cal.rule.block_size));
    f.add("path", cell::of_text(*path));
    f.add("bytes", cell::of_size(bytes(total)));
    f.add("runs", cell::of(runs));
    path_limits shown = limits;  // the limits are the scratch file's; the path given is its directory
    shown.kind = "directory";
    add_policy_fields(f, *policy, &shown);
    add_calibration_fields(f, &cal, *policy, fraction);

    if (fmt == format::csv) {
        f.table().print(stdout, fmt);
        return 0;
    }
    if (fmt == format::json) {
        // Like every subcommand's JSON, an array of objects: one, the CSV row's columns plus "runs", every run.
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
        for (std::size_t i = 0; i < results.size(); ++i) {
            const run_result& r = results[i];
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
            w.real(to_mb_per_s(samples[i].bytes_per_second), 6);
            w.end_object();
        }
        w.end_array();
        w.end_object();
        w.end_array();
        std::fwrite(out.data(), 1, out.size(), stdout);
        return 0;
    }

    // Text: a dd-style table (one row per size, the runs side by side), then the model per size, then the answer.
    cli::table t({"block_size", "count", "seconds", "mb_per_s", "median_mb_per_s", "model_mb_per_s", "residual"});
    for (std::size_t i = 0; i < cal.sorted.size();) {
        const size_stats s = size_stats_at(cal.sorted.data(), cal.sorted.size(), i);
        std::vector<double> secs, rates;
        std::uint64_t count = 0;
        for (std::size_t j = 0; j < results.size(); ++j) {
            if (results[j].block_size != s.block_size.count()) continue;
            secs.push_back(results[j].seconds);
            rates.push_back(to_mb_per_s(samples[j].bytes_per_second));
            count = results[j].count;
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
    t.print_text(stdout);
    std::fputs("\n", stdout);
    const double best = to_mb_per_s(cal.rule.best_bytes_per_second);
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
    print_rule_lines(cal, fraction, best);
    if (cal.fit && cal.fit_size) {
        const chunk_decision fd = policy->decide(*cal.fit_size);
        std::printf("fit    %s (%s) reaches %g%% of B under the model; as a chunk here: %s (decided by %s)\n",
                    format_size(*cal.fit_size).c_str(), scratch_dir::approx(cal.fit_size->count()).c_str(),
                    fraction * 100, format_size(fd.size).c_str(), text_of(to_text(fd.decided_by)).c_str());
    }
    std::printf("chunk  %s (the rule's size, decided by %s; %s on %s%s%s: granularity %s, largest chunk %s)\n",
                format_size(d.size).c_str(), text_of(to_text(d.decided_by)).c_str(), text_of(to_text(mode)).c_str(),
                limits.device.c_str(), limits.disk.empty() ? "" : " ",
                limits.disk.empty() ? "" : ("(" + limits.disk + ")").c_str(),
                format_size(policy->granularity()).c_str(),
                limits.limits.max_transfer_size.count() != 0 ? format_size(policy->max_chunk()).c_str() : "unbounded");
    return 0;
}

}  // namespace provpol::cli
