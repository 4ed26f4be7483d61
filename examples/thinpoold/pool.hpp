// What provpol-thinpoold reads of a thin pool, read strictly: the names it is given (held to lvm2's own rules before
// any command sees them), the device-mapper status line (the kernel's thin-pool status) and lvm2's report of the
// pool (`lvs --nameprefixes`). Every reader returns nothing, with the reason, on anything it does not recognise:
// the daemon acts as root on what it reads, so a line it cannot account for is an error, never a guess.
#ifndef PROVPOL_EXAMPLES_THINPOOLD_POOL_HPP
#define PROVPOL_EXAMPLES_THINPOOLD_POOL_HPP

#include <provpol/bytes.hpp>

#include <cstdint>
#include <limits>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

namespace provpol::thinpoold {

/// Why `name` is not a name lvm2 accepts for a VG (lv = false) or an LV (lv = true), or "" when it is. The rules
/// are lvm2 2.03.16's (lib/misc/lvm-string.c): _validate_name (not empty, no leading '-', not "." or "..", only
/// [A-Za-z0-9._+-], at most 127 characters: NAME_LEN 128 counts the terminating NUL) and, for an LV,
/// apply_lvname_restrictions (no "pvmove" or "snapshot" prefix, none of the component suffixes "_cdata", "_cmeta",
/// "_corig", "_cpool", "_cvol", "_wcorig", "_mimage", "_mlog", "_rimage", "_rmeta", "_tdata", "_tmeta", "_vdata",
/// "_imeta", "_iorig", nor "_pmspare" or "_vorigin" anywhere in it).
inline std::string lvm_name_error(const std::string& name, bool lv) {
    if (name.empty()) return "is empty";
    if (name[0] == '-') return "starts with '-'";
    if (name == "." || name == "..") return "is '" + name + "'";
    for (const char c : name) {
        const bool alnum = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
        if (!alnum && c != '.' && c != '_' && c != '-' && c != '+')
            return "has a character lvm2 refuses (only A-Z a-z 0-9 . _ + -)";
    }
    if (name.size() > 127) return "is longer than lvm2's 127 characters";
    if (!lv) return "";
    for (const char* prefix : {"pvmove", "snapshot"})
        if (name.rfind(prefix, 0) == 0) return std::string("starts with \"") + prefix + "\", which lvm2 reserves";
    for (const char* part : {"_cdata", "_cmeta", "_corig", "_cpool", "_cvol", "_wcorig", "_mimage", "_mlog", "_rimage",
                             "_rmeta", "_tdata", "_tmeta", "_vdata", "_imeta", "_iorig", "_pmspare", "_vorigin"})
        if (name.find(part) != std::string::npos) return std::string("contains \"") + part + "\", which lvm2 reserves";
    return "";
}

/// The device-mapper name lvm2 gives an LV's device (libdm's dm_build_dm_name): '-' doubled in the VG and LV
/// names, joined with '-', then the layer ("-tpool" for a thin pool with thin volumes active).
inline std::string dm_name(const std::string& vg, const std::string& lv, const char* layer) {
    auto esc = [](const std::string& s) {
        std::string o;
        for (char c : s) o += c == '-' ? std::string("--") : std::string(1, c);
        return o;
    };
    return esc(vg) + "-" + esc(lv) + layer;
}

/// Reads a whole unsigned decimal number: digits only (no sign, no space, no suffix), no overflow.
inline bool read_u64(const std::string& s, std::uint64_t& v) {
    if (s.empty() || s.size() > 20) return false;
    std::uint64_t r = 0;
    for (const char c : s) {
        if (c < '0' || c > '9') return false;
        const auto d = static_cast<std::uint64_t>(c - '0');
        if (r > (std::numeric_limits<std::uint64_t>::max() - d) / 10) return false;
        r = r * 10 + d;
    }
    v = r;
    return true;
}

/// One thin-pool status line, as `dmsetup status` prints it for a thin-pool target (the kernel's
/// Documentation/admin-guide/device-mapper/thin-provisioning.rst): "<start> <length> thin-pool <transaction id>
/// <used>/<total metadata blocks> <used>/<total data blocks> <held root> ro|rw|out_of_data_space ...".
struct pool_status {
    std::uint64_t length_sectors = 0;  ///< the target's length: the pool's data size in 512-byte sectors
    std::uint64_t transaction_id = 0;
    std::uint64_t metadata_used = 0, metadata_total = 0;
    std::uint64_t data_used = 0, data_total = 0;
    std::string mode;  ///< rw, ro or out_of_data_space

    /// True when no data block is free, or the kernel says so.
    bool full() const noexcept { return data_used == data_total || mode == "out_of_data_space"; }
};

namespace detail_pool {
inline bool read_fraction(const std::string& s, std::uint64_t& used, std::uint64_t& total) {
    const auto slash = s.find('/');
    return slash != std::string::npos && read_u64(s.substr(0, slash), used) && read_u64(s.substr(slash + 1), total);
}
}  // namespace detail_pool

/// Parses the status of a thin-pool device: exactly one target line, starting at sector 0, of type thin-pool, with
/// every field the daemon uses whole and consistent (used <= total, totals and length not 0, a known mode); fields
/// the kernel appends after the mode are not read. nullopt (with `why`) for anything else: "Fail", another target
/// type, a short line, a sign, a fraction out of range.
inline std::optional<pool_status> parse_status(const std::string& text, std::string& why) {
    std::vector<std::string> lines;
    std::istringstream in(text);
    for (std::string l; std::getline(in, l);)
        if (l.find_first_not_of(" \t\r") != std::string::npos) lines.push_back(l);
    if (lines.size() != 1) {
        why = lines.empty() ? "an empty status" : "a status of " + std::to_string(lines.size()) + " targets";
        return std::nullopt;
    }
    std::istringstream l(lines[0]);
    std::vector<std::string> f;
    for (std::string w; l >> w;) f.push_back(w);
    pool_status s;
    std::uint64_t start = 1;
    if (f.size() < 3 || !read_u64(f[0], start) || !read_u64(f[1], s.length_sectors)) {
        why = "not a device-mapper status line: '" + lines[0] + "'";
        return std::nullopt;
    }
    if (f[2] != "thin-pool") {
        why = "not a thin-pool target (" + f[2] + ")";
        return std::nullopt;
    }
    if (f.size() > 3 && (f[3] == "Fail" || f[3] == "Error")) {
        why = "the pool reports " + f[3];
        return std::nullopt;
    }
    if (f.size() < 9 || start != 0 || s.length_sectors == 0 || !read_u64(f[3], s.transaction_id) ||
        !detail_pool::read_fraction(f[4], s.metadata_used, s.metadata_total) ||
        !detail_pool::read_fraction(f[5], s.data_used, s.data_total) ||
        (f[7] != "rw" && f[7] != "ro" && f[7] != "out_of_data_space") || s.data_total == 0 || s.metadata_total == 0 ||
        s.data_used > s.data_total || s.metadata_used > s.metadata_total) {
        why = "an unreadable thin-pool status: '" + lines[0] + "'";
        return std::nullopt;
    }
    s.mode = f[7];
    return s;
}

/// What lvm2 reports of the pool and its VG.
struct pool_lv {
    bytes size, metadata_size, extent, vg_free, chunk;
    std::string monitor;  ///< seg_monitor: "monitored", "not monitored", "pending", or "" (monitoring off in lvm.conf)
    std::string lv_uuid, vg_uuid, profile;

    /// True when dmeventd watches the pool (or its registration is under way).
    bool monitored() const noexcept { return monitor == "monitored" || monitor == "pending"; }
    /// The pool's data and metadata: what an extend of it takes from the VG.
    bytes allocated() const noexcept { return size + metadata_size; }
    /// The device-mapper UUID of the pool (libdm's "LVM-" + VG id + LV id, the dashes of lvm2's printed ids
    /// dropped; lvm2's build_dm_uuid), without a layer suffix.
    std::string dm_uuid() const {
        std::string u = "LVM-";
        for (const std::string* id : {&vg_uuid, &lv_uuid})
            for (char c : *id)
                if (c != '-') u += c;
        return u;
    }
};

/// The fields read_lvs asks lvs for, in order.
inline constexpr const char* lvs_fields =
    "lv_size,lv_metadata_size,vg_extent_size,vg_free,chunk_size,seg_monitor,lv_uuid,vg_uuid,segtype,lv_profile";

/// Parses `lvs --noheadings --nameprefixes --units b --nosuffix -o <lvs_fields>` for one thin pool: one line of
/// LVM2_NAME='value' pairs, every field present once, sizes whole, the segment type thin-pool, the ids 38
/// characters (lvm2's printed UUID). nullopt (with `why`) for anything else.
inline std::optional<pool_lv> parse_lvs(const std::string& text, std::string& why) {
    std::vector<std::pair<std::string, std::string>> kv;
    std::istringstream in(text);
    int lines = 0;
    for (std::string line; std::getline(in, line);) {
        if (line.find("LVM2_") == std::string::npos) continue;
        ++lines;
        std::size_t at = 0;
        while ((at = line.find("LVM2_", at)) != std::string::npos) {
            const auto eq = line.find("='", at);
            const auto end = eq == std::string::npos ? eq : line.find('\'', eq + 2);
            if (end == std::string::npos) break;
            kv.emplace_back(line.substr(at + 5, eq - at - 5), line.substr(eq + 2, end - eq - 2));
            at = end + 1;
        }
    }
    if (lines != 1) {
        why = lines == 0 ? "lvs printed no report" : "lvs reported " + std::to_string(lines) + " LVs";
        return std::nullopt;
    }
    auto get = [&](const char* key, std::string& v) {
        int n = 0;
        for (const auto& p : kv)
            if (p.first == key) v = p.second, ++n;
        return n == 1;
    };
    pool_lv p;
    std::string seg, sz[5];
    const char* size_keys[] = {"LV_SIZE", "LV_METADATA_SIZE", "VG_EXTENT_SIZE", "VG_FREE", "CHUNK_SIZE"};
    bool ok = get("SEG_MONITOR", p.monitor) && get("LV_UUID", p.lv_uuid) && get("VG_UUID", p.vg_uuid) &&
              get("SEGTYPE", seg) && get("LV_PROFILE", p.profile);
    std::uint64_t v[5] = {};
    for (int i = 0; ok && i < 5; ++i) ok = get(size_keys[i], sz[i]) && read_u64(sz[i], v[i]);
    if (!ok || p.lv_uuid.size() != 38 || p.vg_uuid.size() != 38) {
        why = "an unreadable lvs report: '" + text.substr(0, text.find('\n')) + "'";
        return std::nullopt;
    }
    if (seg != "thin-pool") {
        why = "not a thin pool (segtype " + seg + ")";
        return std::nullopt;
    }
    p.size = bytes(v[0]), p.metadata_size = bytes(v[1]), p.extent = bytes(v[2]), p.vg_free = bytes(v[3]);
    p.chunk = bytes(v[4]);
    if (p.size.count() == 0 || p.extent.count() == 0 || p.chunk.count() == 0 || p.metadata_size.count() == 0) {
        why = "an lvs report with a zero size: '" + text.substr(0, text.find('\n')) + "'";
        return std::nullopt;
    }
    return p;
}

/// Why a status does not belong to the pool lvs reports, or "" when it does: its length is the pool's data size
/// and its data blocks are that size in the pool's chunks (the kernel's nr_blocks, rounded down).
inline std::string status_mismatch(const pool_status& s, const pool_lv& lv) {
    if (s.length_sectors > std::numeric_limits<std::uint64_t>::max() / 512 || s.length_sectors * 512 != lv.size.count())
        return "the device's length (" + std::to_string(s.length_sectors) + " sectors) is not the pool's size (" +
               std::to_string(lv.size.count()) + " bytes)";
    if (s.data_total != lv.size.count() / lv.chunk.count())
        return "the device's " + std::to_string(s.data_total) + " data blocks are not the pool's size in chunks of " +
               std::to_string(lv.chunk.count()) + " bytes";
    return "";
}

}  // namespace provpol::thinpoold

#endif  // PROVPOL_EXAMPLES_THINPOOLD_POOL_HPP
