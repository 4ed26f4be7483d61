// A consumer of provpol's model layer: compiles <provpol/models.hpp> (target provpol::models) and uses it.
#include <provpol/models.hpp>

#include <cstdio>

int main() {
    // "fixed:3.7": every extend takes 3.7 s, so a deadline of 3.69 s is always missed and one of 3.7 s never.
    const auto model = provpol::latency_profile("fixed:3.7");
    if (!model || model->exceed_probability(provpol::seconds(3.69)) != 1.0 ||
        model->exceed_probability(provpol::seconds(3.7)) != 0.0) {
        std::fprintf(stderr, "models consumer: latency_profile(fixed:3.7) gave the wrong answer\n");
        return 1;
    }
    std::printf("provpol %s models: fixed:3.7 misses 3.69 s and meets 3.7 s\n", PROVPOL_VERSION_STRING);
    return 0;
}
