// Fuzzes the provpol CLI over argv, in-process: every subcommand, with option names and preset names taken at run
// time from the CLI's own tables (cli_help(): the usage and option table each command prints for --help, and
// value_choices(): the registries' names an option takes), so that a new command or option is fuzzed without an
// edit here. Values come from a dictionary of edge cases (0, -1, 2^64, NaN, 1e400, lists of 10,000 items, a
// 100,000-digit number, empty, binary and malformed files, "-" with stdin fed from the same files) and from raw
// bytes of the input. Every run must:
//   - exit 0, 2 (bad input), or 3 (an answer printed that misses its target or is cut short); 1 (the work failed)
//     only for calibrate, whose measurement does real I/O; never 70 (an exception main() did not expect) and
//     never abort;
//   - on exit 2, print exactly one line on stderr and nothing on stdout;
//   - stay within a work bound: the options that size the work (--max-events, --max-steps, --jobs, calibrate's
//     --bytes, --runs and --sizes) take only small values or invalid ones, and are given small values when the
//     input leaves them out; the LIST options (one answer per item) of a run share 8 items; the run's output is
//     at most 64 MiB. libFuzzer's -timeout catches the rest.
// The CLI writes through stdout and stderr and reads stdin: for each run, descriptor 1 is pointed at a scratch file,
// stderr at a memory stream and stdin at a fixture file (glibc's stdio streams are variables; sanitizer reports go
// to descriptor 2, which stays the fuzzer's), and the run happens in a scratch directory of fixtures, so
// that a file name made of raw bytes (without '/') cannot reach any other place.
#include "fuzz_check.hpp"

#include "cli/commands.hpp"
#include "cli/generate.hpp"

#include <ftw.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace {

using provpol::cli::command_help;

struct fuzz_option {
    std::string name;
    bool takes_value = false;
    std::vector<std::string> choices;  // the registries' names for its value (value_choices), if any
    bool list = false;                 // its value is a LIST (the help's name for it): one answer per item
};
struct fuzz_command {
    std::string name;
    std::vector<fuzz_option> options;
};

// The fixture files of the scratch directory: name and content.
struct fixture {
    const char* name;
    std::string content;
};

std::string binary_bytes() {
    std::string s;
    for (int r = 0; r < 4; ++r)
        for (int i = 0; i < 256; ++i) s += static_cast<char>(i);
    return s + "\n\",\r\n";
}

std::vector<fixture> fixtures() {
    const std::string clock =
        "2022-03-23 03:57:59,502+0200 INFO  (mailbox-hsm/3) [virt.vm] (vmId='108e') Extend volume 7d85 completed "
        "<Clock(total=1.65, wait=0.28, extend-volume=1.09, refresh-volume=0.28)> (thinp:567)\n";
    return {
        {"empty", ""},
        {"binary.bin", binary_bytes()},
        {"drives.csv", "capacity,physical,allocation\n10737418240,5368709120,4294967296\n1,0,18446744073709551615\n"},
        {"samples.csv", "block_size,mb_per_s\n4096,50\n65536,400\n1048576,900\n4194304,910\n"},
        {"latency.txt", "seconds\n1.5\n2.25\n# a comment\n\n6.5\n0\n"},
        {"vdsm.log", clock + clock + "garbage Extend volume x completed <Clock(total=abc)>\n"},
        {"vdsm.conf", "[irs]\nvolume_utilization_chunk_mb = 2560\nvolume_utilization_percent = 20\n"},
        {"trace.csv", "time_s,bytes_written\n0,0\n10,1073741824\n20,2147483648\n"},
        {"short.csv", "capacity,physical\n1,2,3\n\"unterminated\n"},
    };
}

std::string repeat_list(const std::string& item, int n) {
    std::string s;
    for (int i = 0; i < n; ++i) s += (i ? "," : "") + item;
    return s;
}

// Values any option may get: numbers at the edges, units, specs, files.
std::vector<std::string> edge_values() {
    std::vector<std::string> v = {"0",
                                  "1",
                                  "-1",
                                  "-0",
                                  "2",
                                  "3",
                                  "20",
                                  "99",
                                  "100",
                                  "101",
                                  "1000000",
                                  "1000001",
                                  "4294967296",
                                  "9223372036854775807",
                                  "9223372036854775808",
                                  "18446744073709551615",
                                  "18446744073709551616",
                                  "1e400",
                                  "1e-400",
                                  "NaN",
                                  "nan",
                                  "inf",
                                  "-inf",
                                  "0.5",
                                  "0.99",
                                  "0.999",
                                  "1.5",
                                  "",
                                  " ",
                                  "0x10",
                                  "1e3",
                                  "5 GB",
                                  "x",
                                  "0B",
                                  "1B",
                                  "511",
                                  "512",
                                  "4096",
                                  "4KiB",
                                  "64KiB",
                                  "1MiB",
                                  "2560MiB",
                                  "1GiB",
                                  "1.5GiB",
                                  "1TiB",
                                  "1PiB",
                                  "16EiB",
                                  "17EiB",
                                  "1MB",
                                  "100g",
                                  "8s",
                                  "95%",
                                  "0%",
                                  "101%",
                                  "0MiB/s",
                                  "1B/s",
                                  "100MiB/s",
                                  "8.2GiB/s",
                                  "1e30MiB/s",
                                  "3600",
                                  "3601",
                                  "1e9",
                                  "fixed:0",
                                  "fixed:-1",
                                  "fixed:NaN",
                                  "fixed:2",
                                  "fixed:4000",
                                  "fixed:1e300",
                                  "samples:latency.txt",
                                  "samples:empty",
                                  "samples:binary.bin",
                                  "samples:missing",
                                  "vdsm-log:vdsm.log",
                                  "vdsm-log:-",
                                  "vdsm-log:empty",
                                  "10,0",
                                  "0,10",
                                  "1,2,3",
                                  "1MiB,2MiB",
                                  ",",
                                  "a=1",
                                  "crc=0",
                                  "reflink=1,rmapbt=1",
                                  "-",
                                  ".",
                                  "cal",
                                  "missing",
                                  "missing.csv",
                                  "empty",
                                  "binary.bin",
                                  "drives.csv",
                                  "samples.csv",
                                  "latency.txt",
                                  "vdsm.log",
                                  "vdsm.conf",
                                  "trace.csv",
                                  "short.csv",
                                  "text",
                                  "csv",
                                  "json",
                                  "svg"};
    v.push_back(repeat_list("1MiB", 10000));
    v.push_back(repeat_list("100MiB/s", 10000));
    v.push_back(std::string(100000, '9'));
    return v;
}

// The options that size the work: the values the fuzzer may give them (small valid ones, and invalid ones), and
// the value given when the input leaves the option out.
struct work_option {
    std::vector<std::string> values;
    std::string default_value;
};
const std::map<std::string, work_option>& work_options() {
    static const std::map<std::string, work_option> w = {
        {"--max-events", {{"1", "1000", "200000", "0", "-1", "NaN", "18446744073709551616", ""}, "200000"}},
        {"--max-steps", {{"1", "2", "100", "0", "-1", "1000001", "x"}, "100"}},
        {"--jobs", {{"1", "2", "0", "1025", "x"}, "1"}},
    };
    return w;
}
// calibrate writes files and measures: its sizes stay small too.
const std::map<std::string, work_option>& calibrate_work_options() {
    static const std::map<std::string, work_option> w = {
        {"--bytes", {{"4KiB", "64KiB", "0", "-1", "1e400", "16EiB"}, "64KiB"}},
        {"--runs", {{"1", "2", "0", "101", "NaN"}, "1"}},
        {"--sizes", {{"4KiB", "4KiB,64KiB", "0", "1", "3KiB", "", "1TiB"}, "4KiB,64KiB"}},
        {"--mode", {{"buffered", "buffered-dsync", "direct", "x"}, "buffered"}},
    };
    return w;
}

struct tables {
    std::vector<fuzz_command> commands;
    std::vector<std::string> names;   // every kebab-case name in any help text (presets, profiles, modes)
    std::vector<std::string> values;  // edge_values()
    std::vector<fixture> files;
    std::vector<std::string> stdin_files;  // the fixtures stdin may be
};

// Kebab-case words of a help text: preset and profile names, modes, metrics ("vdsm-2022", "lvm-thin-autoextend").
void add_names(const std::string& text, std::set<std::string>& out) {
    std::string word;
    auto flush = [&]() {
        if (word.size() > 2 && word.find('-') != std::string::npos && word.front() != '-' && word.back() != '-')
            out.insert(word);
        word.clear();
    };
    for (char c : text) {
        if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '.')
            word += c;
        else
            flush();
    }
    flush();
}

char scratch_dir[] = "/tmp/provpol-cli-fuzz.XXXXXX";

int remove_entry(const char* path, const struct stat*, int, struct FTW*) { return std::remove(path); }
void remove_scratch() { nftw(scratch_dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS); }

tables build_tables() {
    tables t;
    // The scratch directory: every file the CLI may read or write in a run is in it; removed at exit.
    PROVPOL_FUZZ_CHECK(mkdtemp(scratch_dir) != nullptr);
    PROVPOL_FUZZ_CHECK(chdir(scratch_dir) == 0);
    std::atexit(remove_scratch);
    PROVPOL_FUZZ_CHECK(mkdir("cal", 0700) == 0);
    t.files = fixtures();
    for (const fixture& f : t.files) {
        std::FILE* out = std::fopen(f.name, "wb");
        PROVPOL_FUZZ_CHECK(out != nullptr);
        PROVPOL_FUZZ_CHECK(std::fwrite(f.content.data(), 1, f.content.size(), out) == f.content.size());
        PROVPOL_FUZZ_CHECK(std::fclose(out) == 0);
        t.stdin_files.push_back(f.name);
    }
    // The commands and their options from the CLI's own tables. Their help is printed through stdout: keep it.
    std::set<std::string> names;
    for (const command_help& c : provpol::cli::cli_help()) {
        fuzz_command fc{c.name, {}};
        add_names(c.help.usage, names);
        for (const provpol::cli::option& o : c.help.options) {
            if (std::string(o.name) == "--help") continue;  // rare below: help ends the run before anything else
            fuzz_option fo{o.name, o.value_name != nullptr, {}, o.value_name && std::string(o.value_name) == "LIST"};
            if (fo.takes_value)
                for (const std::string& v : provpol::cli::value_choices(o))
                    if (!v.empty()) fo.choices.push_back(v);
            add_names(o.help, names);
            fc.options.push_back(fo);
            if (o.alias) fc.options.push_back({o.alias, fo.takes_value, fo.choices, fo.list});
        }
        t.commands.push_back(fc);
    }
    PROVPOL_FUZZ_CHECK(t.commands.size() >= 8);
    t.names.assign(names.begin(), names.end());
    t.values = edge_values();
    return t;
}

const tables& get_tables() {
    static const tables t = build_tables();
    return t;
}

// Reads the fuzz input as choices.
class chooser {
public:
    chooser(const std::uint8_t* data, std::size_t size) : r_(data, size) {}
    bool more() const { return r_.remaining() > 0; }
    std::size_t pick(std::size_t n) { return n == 0 ? 0 : (std::size_t{r_.u8()} | std::size_t{r_.u8()} << 8) % n; }
    std::uint8_t byte() { return r_.u8(); }
    std::size_t list_budget = 8;  // the items left for this run's LIST options (bounded())
    // Raw bytes as an argument: at most 40, without NUL (argv cannot hold one) or '/' (no path out of the
    // scratch directory).
    std::string raw() {
        const std::size_t n = r_.u8() % 41;
        std::string s;
        for (std::size_t i = 0; i < n && more(); ++i) {
            char c = static_cast<char>(r_.u8());
            if (c == '\0') c = 'x';
            if (c == '/') c = '_';
            s += c;
        }
        return s == ".." ? "__" : s;  // nor the parent directory
    }

private:
    provpol::fuzz::reader r_;
};

const std::map<std::string, work_option>* work_table(const std::string& command, const std::string& option) {
    if (command == "calibrate" && calibrate_work_options().count(option)) return &calibrate_work_options();
    if (work_options().count(option)) return &work_options();
    return nullptr;
}

// A value of any kind for an option: its registry's names, edge values, raw bytes, short lists.
std::string any_value_for(chooser& in, const tables& t, const fuzz_option& o) {
    switch (in.byte() % 8) {
        case 0:
        case 1:
            if (!o.choices.empty()) return o.choices[in.pick(o.choices.size())];
            return t.values[in.pick(t.values.size())];
        case 2:
            return t.names[in.pick(t.names.size())];
        case 3:
            return in.raw();
        case 4: {  // a list of names or values
            std::string s = t.values[in.pick(t.values.size())];
            const std::size_t n = in.byte() % 4;
            for (std::size_t i = 0; i < n; ++i)
                s += "," +
                     (o.choices.empty() ? t.values[in.pick(t.values.size())] : o.choices[in.pick(o.choices.size())]);
            return s;
        }
        default:
            return t.values[in.pick(t.values.size())];
    }
}

// A LIST option answers once per item (plan, capacity and recommend per rate, latency or policy): a list of
// 10,000 items is 10,000 answers, minutes of legitimate work, and a repeated option adds its items up. The LIST
// options of one run share 8 items (`budget`): each occurrence of such an option counts one, and its value gets
// as many of its items as still fit (still every per-item path, the joining of the answers, a usage error in a
// late item); an occurrence past the budget is left out. Other options keep the whole list, which they refuse or
// read at once.
std::string bounded(const fuzz_option& o, std::string v, std::size_t& budget) {
    if (!o.list) return v;
    std::size_t extra = 0, i = 0;  // the first item was counted with the option's name (takes_list_item)
    for (; i < v.size(); ++i)
        if (v[i] == ',' && ++extra > budget) break;
    budget -= extra > budget ? budget : extra;
    return v.substr(0, i);
}

// Whether one more LIST option fits the run's budget (counting its first item; the name alone, without a value,
// takes the next argument as one): false leaves the option out.
bool takes_list_item(const fuzz_option& o, std::size_t& budget) {
    if (!o.list) return true;
    if (budget == 0) return false;
    --budget;
    return true;
}

std::string value_for(chooser& in, const tables& t, const std::string& command, const fuzz_option& o) {
    if (const auto* w = work_table(command, o.name)) {
        const auto& values = w->at(o.name).values;
        return values[in.pick(values.size())];
    }
    return bounded(o, any_value_for(in, t, o), in.list_budget);
}

bool has_arg(const std::vector<std::string>& args, const std::string& name) {
    for (const std::string& a : args)
        if (a == name || a.compare(0, name.size() + 1, name + "=") == 0) return true;
    return false;
}

// The argv of one run, from the input.
std::vector<std::string> arguments(chooser& in, const tables& t, std::size_t& stdin_file) {
    std::vector<std::string> args = {"provpol"};
    stdin_file = in.pick(t.stdin_files.size());
    const std::size_t which = in.pick(t.commands.size() + 4);
    if (which >= t.commands.size()) {  // the top level: help, --version, an unknown command, nothing
        static const char* const top[] = {"help", "--version", "--help", "extnd"};
        args.push_back(top[which - t.commands.size()]);
        while (in.more() && args.size() < 4)
            args.push_back(in.byte() % 2 ? t.commands[in.pick(t.commands.size())].name : in.raw());
        return args;
    }
    const fuzz_command& c = t.commands[which];
    args.push_back(c.name);
    // A LIST option given without its value takes the next argument as its value: a stray or raw value there is
    // bounded as the option's own would be (the dictionary has lists of thousands of items).
    const fuzz_option* bare_list = nullptr;  // the last argument, when it is a LIST option pushed without a value
    const auto as_value_of = [&in](const fuzz_option* o, std::string v) {
        return o != nullptr ? bounded(*o, std::move(v), in.list_budget) : v;
    };
    while (in.more() && args.size() < 40) {
        const std::uint8_t kind = in.byte() % 12;
        const std::size_t size_before = args.size();
        const fuzz_option* const before = bare_list;
        const fuzz_option* pushed_bare = nullptr;  // `continue` below pushes nothing and keeps bare_list
        if (kind < 7 && !c.options.empty()) {      // an option of this command, and its value
            const fuzz_option& o = c.options[in.pick(c.options.size())];
            if (!takes_list_item(o, in.list_budget)) continue;
            args.push_back(o.name);
            if (o.takes_value && in.byte() % 16 != 0)
                args.push_back(value_for(in, t, c.name, o));
            else if (o.list)
                pushed_bare = &o;
        } else if (kind == 7 && !c.options.empty()) {  // --option=value
            const fuzz_option& o = c.options[in.pick(c.options.size())];
            if (!takes_list_item(o, in.list_budget)) continue;
            args.push_back(o.name + "=" + (o.takes_value ? value_for(in, t, c.name, o) : std::string("1")));
        } else if (kind == 8) {  // an option of another command
            const fuzz_command& other = t.commands[in.pick(t.commands.size())];
            if (!other.options.empty()) {
                const fuzz_option& o = other.options[in.pick(other.options.size())];
                if (!takes_list_item(o, in.list_budget)) continue;
                args.push_back(o.name);
                if (o.takes_value) args.push_back(value_for(in, t, other.name, o));
            }
        } else if (kind == 9) {  // a stray value
            args.push_back(as_value_of(before, t.values[in.pick(t.values.size())]));
        } else if (kind == 10) {
            args.push_back(as_value_of(before, in.raw()));
        } else {
            static const char* const odd[] = {"--", "-", "--x", "---format", "--format=", "-x", "--help", "-h"};
            const std::size_t n = in.byte() % 8 == 0 ? std::size(odd) : std::size(odd) - 2;
            args.push_back(odd[in.pick(n)]);
        }
        if (args.size() != size_before) bare_list = pushed_bare;
    }
    // The work bound: options that size the work, when the command has them and the input left them out.
    for (const fuzz_option& o : c.options) {
        const auto* w = work_table(c.name, o.name);
        if (w != nullptr && !has_arg(args, o.name)) {
            args.push_back(o.name);
            args.push_back(w->at(o.name).default_value);
        }
    }
    return args;
}

// A memory stream that the run's stdout or stderr is pointed at.
struct captured {
    char* data = nullptr;
    std::size_t size = 0;
    std::FILE* f = nullptr;
    captured() {
        f = open_memstream(&data, &size);
        PROVPOL_FUZZ_CHECK(f != nullptr);
    }
    captured(const captured&) = delete;
    captured& operator=(const captured&) = delete;
    void close() {
        if (f) std::fclose(f);
        f = nullptr;
    }
    ~captured() {
        close();
        std::free(data);
    }
};

void print_argv(const std::vector<std::string>& args, int status, const char* err, std::size_t err_size) {
    std::fprintf(stderr, "cli_fuzz: exit %d for:", status);
    for (const std::string& a : args) {
        const std::string shown = provpol::cli::args::visible(a);
        std::fprintf(stderr, " '%.200s%s'", shown.c_str(), shown.size() > 200 ? "..." : "");
    }
    std::fprintf(stderr, "\ncli_fuzz: its stderr (%zu bytes): %.*s\n", err_size,
                 static_cast<int>(err_size < 2000 ? err_size : 2000), err ? err : "");
}

// Restores the fixtures' content after a calibrate run, which may have written over one (--save-samples); a file
// it creates under another name stays in the scratch directory, removed at exit.
void restore_scratch(const tables& t) {
    for (const fixture& f : t.files) {
        std::FILE* out = std::fopen(f.name, "wb");
        if (out == nullptr) continue;
        std::fwrite(f.content.data(), 1, f.content.size(), out);
        std::fclose(out);
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const tables& t = get_tables();
    chooser in(data, size);
    std::size_t stdin_index = 0;
    const std::vector<std::string> args = arguments(in, t, stdin_index);
    std::vector<std::vector<char>> storage;
    std::vector<char*> argv;
    for (const std::string& a : args) {
        storage.emplace_back(a.begin(), a.end());
        storage.back().push_back('\0');
    }
    for (auto& s : storage) argv.push_back(s.data());
    argv.push_back(nullptr);

    static const bool verbose = std::getenv("PROVPOL_CLI_FUZZ_VERBOSE") != nullptr;  // every run's argv and status
    if (verbose) print_argv(args, -1, nullptr, 0);  // before the run too: a crash shows its arguments
    // stdout at the file-descriptor level, as the program's own stdout is: the CLI itself redirects descriptor 1
    // to capture the answer of each value of a list (per_value.hpp), which a swapped FILE* would bypass.
    std::FILE* const saved_err = stderr;
    std::FILE* const saved_in = stdin;
    std::fflush(stdout);
    std::fflush(stderr);
    static std::FILE* const out_file = std::tmpfile();
    PROVPOL_FUZZ_CHECK(out_file != nullptr);
    PROVPOL_FUZZ_CHECK(ftruncate(fileno(out_file), 0) == 0 && std::fseek(out_file, 0, SEEK_SET) == 0);
    const int saved_out = dup(1);
    PROVPOL_FUZZ_CHECK(saved_out >= 0 && dup2(fileno(out_file), 1) == 1);
    captured err;
    std::FILE* input = std::fopen(t.stdin_files[stdin_index].c_str(), "rb");
    PROVPOL_FUZZ_CHECK(input != nullptr);
    stderr = err.f;
    stdin = input;
    const int status = provpol::cli::provpol_main(static_cast<int>(args.size()), argv.data());
    std::fflush(stdout);
    stderr = saved_err;
    stdin = saved_in;
    PROVPOL_FUZZ_CHECK(dup2(saved_out, 1) == 1);
    close(saved_out);
    std::fclose(input);
    err.close();
    struct stat out_stat {};
    PROVPOL_FUZZ_CHECK(fstat(fileno(out_file), &out_stat) == 0);
    const auto out_size = static_cast<std::size_t>(out_stat.st_size);
    // The runs that write a file the user names: calibrate (--save-samples and its scratch files) and
    // `latency --vdsm-log --save-flow`. Their I/O failure is exit 1 (docs/install.md), naming the file.
    const bool calibrate = args.size() > 1 && args[1] == "calibrate";
    const bool save_flow = has_arg(args, "--save-flow");
    if (calibrate || save_flow) restore_scratch(t);

    std::size_t lines = 0;
    for (std::size_t i = 0; i < err.size; ++i) lines += err.data[i] == '\n' ? 1u : 0u;
    const bool one_line = lines == 1 && err.size > 1 && err.data[err.size - 1] == '\n';
    // --save-flow's failure comes after the log's warnings (held until the command read its options, and printed
    // with a failure that is not a usage error), so it is the last line, and nothing went to stdout.
    const std::string err_text = err.size > 0 ? std::string(err.data, err.size) : std::string();
    const std::size_t last_start = err.size > 1 ? err_text.rfind('\n', err.size - 2) : std::string::npos;
    const std::string last_line = err_text.substr(last_start == std::string::npos ? 0 : last_start + 1);
    const bool save_failed = save_flow && out_size == 0 && !last_line.empty() && last_line.back() == '\n' &&
                             last_line.find(": --save-flow: ") != std::string::npos;
    const bool ok_status =
        status == 0 || status == 2 || status == 3 || (status == 1 && ((calibrate && one_line) || save_failed));
    const bool ok_usage = status != 2 || (one_line && out_size == 0);
    const bool ok_size = out_size <= (std::size_t{64} << 20) && err.size <= (std::size_t{1} << 20);
    if (verbose || !ok_status || !ok_usage || !ok_size) print_argv(args, status, err.data, err.size);
    PROVPOL_FUZZ_CHECK(ok_status);
    PROVPOL_FUZZ_CHECK(ok_usage);
    PROVPOL_FUZZ_CHECK(ok_size);
    return 0;
}
