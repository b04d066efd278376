// BDF(3)'s stability limit. BDF(3) is only A(86°)-stable: on a lightly damped oscillation with
// 0 < omega h < ~2 its roots lie outside the unit circle (an undamped one grows by up to 4.4 % a
// step at omega h = 1; one with damping ratio 0.05 by up to 1.1 %). A constant-Q material (Q = 4.8:
// damping ratio ~0.07-0.13 over the fit band, less where the three-term fit's Q peaks) or an
// elastic body with little damping then rings up slowly with nothing wrong in any single step: the
// Ex. 10 cube at 40 ms grew 14x in 36 s, the shipped liver-creep slab at rest 2.5x in 40 s. BDF(2)
// is A-stable and damps the same modes. So, as CVODE's stability limit detection does for its
// orders 3-5 (Hindmarsh, "Detecting stability barriers in BDF solvers", 1992), the step watches for
// a mode that order 3 amplifies and steps at order 2 for a while when it sees one.
//
// The indicator is the third backward difference of the positions, |p_{n+1} - 3 p_n + 3 p_{n-1} -
// p_{n-2}| (RMS over the vertices): h^3 |p'''| for smooth motion, and (2 sin(omega h / 2))^3 times
// the amplitude for an oscillation at omega h, so the band order 3 amplifies dominates it. Its
// squares are summed over windows of kWindowSteps steps (the sum averages over an oscillation's
// phase); kGrowingWindows windows in a row each with a larger sum than the one before (or two that
// together grew kFastGrowth-fold), above the noise floor, limit the order to 2 for kReducedSteps
// steps, after which order 3 is tried again.
// A false alarm (a body pushed harder and harder) costs only order 2 for those steps. Everything
// lives in the state's BDF history (SimulationState::History::OrderLimit), so rollback, snapshots
// and a restart at order 1 (new dt, settings change) carry or clear it with the history.
#pragma once

#include "engine/sim/simulation.h"

namespace softbody {

inline constexpr int kWindowSteps = 32;
inline constexpr int kGrowingWindows = 3;
// Two growing windows suffice when together they grew by this factor (the amplitude by 4): an
// undamped mode at omega h = 1 grows 4.4 % a step, 4x in 32 steps.
inline constexpr double kFastGrowth = 16;
inline constexpr int kReducedSteps = 8 * kWindowSteps;
// The indicator's floor as a fraction of the rest bounding-box diagonal: below it a mode is
// invisible (25 nm on the 25 cm liver slab), and the Newton tolerance's noise does not count as
// growth. At 1e-9 the liver slab at rest spent half its steps at order 2 (windows near the floor
// rising three in a row by chance); at 1e-7 once in 60 s, coming to rest as fast.
inline constexpr double kDifferenceFloor = 1e-7;

// RMS over the vertices of p_next - 3 p + 3 p_1 - p_2 (p_1, p_2: the two states before p).
double third_difference_rms(const Vec3Array& p_next, const Vec3Array& p, const Vec3Array& p_1,
                            const Vec3Array& p_2);

// The highest order the limit allows now (2 while a growing mode is being damped, else 3).
int order_allowed(const SimulationState::History::OrderLimit& limit);

// Counts one accepted step: `stepped_order` the order it ran at, `difference` its third difference
// (used only at order 3), `floor` kDifferenceFloor times the rest diagonal.
void observe_step(SimulationState::History::OrderLimit& limit, int stepped_order, double difference,
                  double floor);

}  // namespace softbody
