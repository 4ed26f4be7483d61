// provpol/simulate/stratis_recommend.hpp - recommend's question for a Stratis pool: the smallest backstore free
// space that keeps every simulated run (stratis_pool.hpp) out of error_if_no_space and EIO
// (recommend_stratis_headroom, a scan with search.hpp's smallest_meeting), and the largest it needs to look at
// (stratis_headroom_bound).
//
// SPDX-License-Identifier: MIT
#ifndef PROVPOL_SIMULATE_STRATIS_RECOMMEND_HPP
#define PROVPOL_SIMULATE_STRATIS_RECOMMEND_HPP

#include "../bytes.hpp"
#include "../config.hpp"
#include "../extend/stratis.hpp"
#include "../result.hpp"
#include "search.hpp"
#include "stratis_check_timing.hpp"
#include "stratis_plan_summary.hpp"
#include "stratis_pool.hpp"
#include "stratis_pool_run.hpp"

#include <cstdint>

namespace provpol {

/// recommend's question: the smallest backstore free space, in whole GiB in [1, max_gib], such that in every one
/// of `runs` runs (seeded as simulate_stratis_plan seeds them) the pool never enters error_if_no_space and no write
/// fails (EIO), the workload's backstore_free replaced by each candidate (and, with `metadata_for_tier`, its
/// metadata sized by stratis_size_metadata for the tier that candidate makes, as a pool created on it has). A scan
/// (search.hpp's smallest_meeting): every smaller candidate was simulated and missed; not found when none in the range
/// meets.
struct stratis_headroom_answer {
    std::uint64_t gib = 0;           ///< the answer (meaningful when found)
    bool found = false;              ///< a candidate in [1, max_gib] meets
    std::uint64_t evaluations = 0;   ///< candidates simulated
    stratis_plan_summary at_answer;  ///< the plan at the answer (at max_gib when not found)
};

/// The largest headroom recommend needs to look at: past it the data side cannot run short (the backstore holds
/// what is written beyond the pool plus DATA_LOWATER) and the metadata and its spare can grow to their cap.
PROVPOL_NODISCARD constexpr std::uint64_t stratis_headroom_bound(const stratis_config& c,
                                                                 const stratis_pool_workload& w) noexcept {
    constexpr std::uint64_t gib = std::uint64_t{1} << 30;
    const bytes need = (w.pool_used + w.write + c.data_lowater()) - w.pool_size;
    const std::uint64_t data = need.count() / gib + (need.count() % gib != 0 ? 1 : 0);
    const bytes meta = saturating_mul(c.max_metadata(), 2);
    return saturating_add(saturating_add(data, meta.count() / gib + 1), 1);
}

/// Answers stratis_headroom_answer's question (see there) with smallest_meeting over [1, max_gib].
PROVPOL_NODISCARD inline stratis_headroom_answer recommend_stratis_headroom(const stratis_config& c,
                                                                            const stratis_check_timing& m,
                                                                            stratis_pool_workload w, std::uint32_t runs,
                                                                            std::uint64_t seed, std::uint64_t max_gib,
                                                                            bool metadata_for_tier = false) noexcept {
    const auto plan_at = [&](std::uint64_t gib) {
        w.backstore_free = bytes(saturating_mul(gib, std::uint64_t{1} << 30));
        if (metadata_for_tier) stratis_size_metadata(c, w);
        return simulate_stratis_plan(c, m, w, runs, seed);
    };
    const auto meets = [&](std::uint64_t gib) {
        const stratis_plan_summary s = plan_at(gib);
        return s.error_mode_runs == 0 && s.eio_runs == 0;
    };
    stratis_headroom_answer a{};
    const result<search_answer<std::uint64_t>> found = smallest_meeting(std::uint64_t{1}, max_gib, meets);
    if (found) {  // meets returns bool: no error to pass on
        a.gib = found->value;
        a.found = found->found;
        a.evaluations = found->evaluations;
    }
    a.at_answer = plan_at(a.found ? a.gib : max_gib);
    return a;
}

}  // namespace provpol

#endif  // PROVPOL_SIMULATE_STRATIS_RECOMMEND_HPP
