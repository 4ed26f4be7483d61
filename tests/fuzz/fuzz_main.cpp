// Replays fuzz inputs without libFuzzer: each argument is a file or a directory of files, and every file is
// passed to LLVMFuzzerTestOneInput once. This is how ctest runs the saved corpus under g++.
#include <dirent.h>
#include <sys/stat.h>

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

namespace {

bool run_file(const std::string& path) {
    std::FILE* f = std::fopen(path.c_str(), "rb");
    if (f == nullptr) {
        std::fprintf(stderr, "fuzz replay: cannot open %s\n", path.c_str());
        return false;
    }
    std::vector<std::uint8_t> data;
    std::uint8_t buf[65536];
    std::size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) data.insert(data.end(), buf, buf + n);
    std::fclose(f);
    LLVMFuzzerTestOneInput(data.data(), data.size());
    return true;
}

}  // namespace

int main(int argc, char** argv) {
    std::size_t files = 0;
    for (int i = 1; i < argc; ++i) {
        struct stat st {};
        if (stat(argv[i], &st) != 0) {
            std::fprintf(stderr, "fuzz replay: %s does not exist\n", argv[i]);
            return 1;
        }
        if (S_ISDIR(st.st_mode)) {
            DIR* d = opendir(argv[i]);
            if (d == nullptr) return 1;
            std::vector<std::string> names;
            while (const dirent* e = readdir(d))
                if (e->d_name[0] != '.') names.push_back(std::string(argv[i]) + "/" + e->d_name);
            closedir(d);
            for (const auto& p : names) files += run_file(p) ? 1u : 0u;
        } else {
            files += run_file(argv[i]) ? 1u : 0u;
        }
    }
    if (files == 0) {
        std::fprintf(stderr, "fuzz replay: no inputs\n");
        return 1;
    }
    std::printf("replayed %zu inputs\n", files);
    return 0;
}
