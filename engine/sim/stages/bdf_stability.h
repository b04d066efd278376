// BDF(3)'s stability limit. BDF(3) is only A(86°)-stable: on a lightly damped oscillation with
// 0 < omega h < ~2 its roots lie outside the unit circle (an undamped one grows by 4.4 % a step
// at omega h = 1, 4.6 % at most, near 1.14; one with damping ratio 0.05 by up to 1.1 %). A
// constant-Q material (Q = 4.8: damping ratio ~0.07-0.13 over the fit band, less where the
// three-term fit's Q peaks) or an elastic body with little damping then rings up slowly with
// nothing wrong in any single step: the Ex. 10 cube at 40 ms grew 14x in 36 s, the shipped
// liver-creep slab at rest 2.5x in 40 s. BDF(2) is A-stable and damps the same modes. So, as
// CVODE's stability limit detection does for its orders 3-5 (Hindmarsh, "Detecting stability
// barriers in BDF solvers", 1992), the step watches for a mode that order 3 amplifies and steps at
// order 2 for a while when it sees one.
//
// The indicator is the third backward difference of the positions, |p_{n+1} - 3 p_n + 3 p_{n-1} -
// p_{n-2}| (RMS over the vertices): h^3 |p'''| for smooth motion, and (2 sin(omega h / 2))^3 times
// the amplitude for an oscillation at omega h, so the band order 3 amplifies dominates it. Its
// squares are summed over windows (the sum averages over an oscillation's phase) by two watches:
// after a baseline window, two or more 16-step windows in a row that each grew and together grew
// 8-fold (in squares: the amplitude 2.8-fold), or three 32-step windows in a row that each grew,
// above the noise floor, limit the order to 2 for kReducedSteps steps,
// after which order 3 is tried again; each further limit lasts twice as long (a body's
// lightly damped modes stay: the elastic liver slab rang up again within seconds of each limit).
// A false alarm (a body pushed harder and harder) costs only order 2 for those steps. Everything
// lives in the state's BDF history (SimulationState::History::OrderLimit), so rollback and
// snapshots carry it and a settings change clears it with the history; a retry with substeps (a
// new dt) restarts the windows but keeps a limit in force and the count of limits.
#pragma once

#include "engine/sim/simulation.h"

namespace softbody {

// The two watches: a window length, how many growing windows in a row, and how much they must
// have grown together. The short one catches fast growth (an undamped mode at omega h = 1 grows
// 4.4 % a step, 4x in 32 steps; the elastic liver slab reached 3.2 m/s with only the long one,
// 1.3 with a short one needing 16-fold growth, 0.67 with 8-fold), the long one slow growth whose
// short windows wander with the oscillation's phase (the liver-creep slab's, 0.06 % a step, went
// unseen by 16-step windows).
struct GrowthRule {
  int window_steps, windows;
  double growth;
};
inline constexpr GrowthRule kFastRule{16, 2, 8};
inline constexpr GrowthRule kSlowRule{32, 3, 1};
inline constexpr int kReducedSteps = 256;
// The k-th limit lasts kReducedSteps 2^(k-1) steps, at most 2^kMaxDoublings times as long.
inline constexpr int kMaxDoublings = 5;
// The indicator's floor as a fraction of the rest bounding-box diagonal: below it a mode is
// invisible (25 nm on the 25 cm liver slab), and the Newton tolerance's noise does not count as
// growth. At 1e-9 the liver slab at rest spent half its steps at order 2 (windows near the floor
// rising three in a row by chance); at 1e-7 once in 60 s, coming to rest as fast.
inline constexpr double kDifferenceFloor = 1e-7;

// A step's third difference counts only when it exceeds this fraction of the step's motion (RMS of
// p_next - p). For an oscillation at omega h their ratio is about (omega h)^2: the band order 3
// amplifies (omega h from ~0.2; an undamped mode there grows 0.05 % a step, 4.4 % at 1) counts,
// smooth motion does not — without it the rising third difference of a smooth swing after each
// zero (a toy spring at 200 steps a period) looked like growth.
inline constexpr double kBandRatio = 0.05;

// RMS over the vertices of a - b.
double rms_distance(const Vec3Array& a, const Vec3Array& b);

// RMS over the vertices of p_next - 3 p + 3 p_1 - p_2 (p_1, p_2: the two states before p).
double third_difference_rms(const Vec3Array& p_next, const Vec3Array& p, const Vec3Array& p_1,
                            const Vec3Array& p_2);

// How many steps at order 2 the `reductions`-th limit (from 1) lasts.
int reduced_steps_after(int reductions);

// The highest order the limit allows now (2 while a growing mode is being damped, else 3).
int order_allowed(const SimulationState::History::OrderLimit& limit);

// Counts one accepted step: `stepped_order` the order it ran at, `difference` its third difference
// and `motion` its step's RMS motion (used only at order 3), `floor` kDifferenceFloor times the
// rest diagonal.
void observe_step(SimulationState::History::OrderLimit& limit, int stepped_order, double difference,
                  double motion, double floor);

}  // namespace softbody
